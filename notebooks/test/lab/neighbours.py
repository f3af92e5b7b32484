"""What another user of the same machine sees and can send: the TCP ports that listen (from /proc, which names each
socket's owner), a process's command line, and a Jupyter execute request signed with whatever key one has. Used by
the lab's attacks (attacks.py, run as one student against another) and by the kernel's tests (test_secrets.py,
test_classroom.py)."""
import hashlib
import hmac
import json
import os
import uuid


def listening_ports(pid="self", uid=None, inodes=None):
    """TCP ports in LISTEN state in process pid's network: all of them, or those owned by user uid, or those of the
    sockets whose inodes are given."""
    ports = set()
    for table in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{table}") as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            field = line.split()
            if field[3] != "0A":
                continue
            if uid is not None and int(field[7]) != uid:
                continue
            if inodes is not None and field[9] not in inodes:
                continue
            ports.add(int(field[1].rsplit(":", 1)[1], 16))
    return ports


def socket_inodes(pid):
    """The inodes of the sockets process pid holds open (empty when its folder cannot be read)."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    except OSError:
        pass
    return inodes


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().decode(errors="replace").split("\0")
    except OSError:
        return []


def send_execute(port, code, key=None):
    """A Jupyter execute request signed with key (default: a made-up one), sent to 127.0.0.1:port; whether anything
    answered within a second."""
    import zmq
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"tcp://127.0.0.1:{port}")
    header = {"msg_id": uuid.uuid4().hex, "session": uuid.uuid4().hex, "username": "someone", "msg_type": "execute_request",
              "version": "5.3", "date": "2026-01-01T00:00:00Z"}
    content = {"code": code, "silent": False, "store_history": False, "user_expressions": {}, "allow_stdin": False,
               "stop_on_error": True}
    parts = [json.dumps(x).encode() for x in (header, {}, {}, content)]
    signature = hmac.new(key or uuid.uuid4().hex.encode(), b"".join(parts), hashlib.sha256).hexdigest().encode()
    try:
        sock.send_multipart([b"<IDS|MSG>", signature] + parts, flags=zmq.NOBLOCK)
        return sock.poll(1000) != 0
    except zmq.ZMQError:
        return False
    finally:
        sock.close()
