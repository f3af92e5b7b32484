"""Run as one student of the lab against another whose kernel holds niodev rank engines (hold_engines.py): each
attack a student could try on a shared lab server, which must fail. Prints one line per attack; exits 1 if any
succeeded.

    runuser -u ATTACKER -- /usr/bin/python3 attacks.py --victim NAME --pids PID,PID,... --checkout PATH --lessons DIR
    /usr/bin/python3 attacks.py --control CONNECTION_FILE      (as root: the forged-message attack's control)
"""
import argparse
import glob
import json
import time
import uuid
import os
import pwd
import re
import signal
import socket
import subprocess
import sys

from neighbours import cmdline, listening_ports, send_execute

TOKEN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
failures = []


def result(name, ok, detail):
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)
    if not ok:
        failures.append(name)


def control(connection_file):
    """Run as root, with the victim's connection file: the same request signed with her real key does run (so the
    refusal above is the kernel checking the signature, not a message that could never have worked)."""
    with open(connection_file) as f:
        info = json.load(f)
    planted = f"/tmp/m2n-control-{uuid.uuid4().hex}"
    send_execute(info["shell_port"], f'new java.io.File("{planted}").createNewFile()', info["key"].encode())
    deadline = time.monotonic() + 30
    while not os.path.exists(planted) and time.monotonic() < deadline:
        time.sleep(0.2)
    ran = os.path.exists(planted)
    if ran:
        os.remove(planted)
    print(f"{'ok  ' if ran else 'FAIL'} control: the same request signed with her key ran in her kernel: {ran}", flush=True)
    sys.exit(0 if ran else 1)


def forge_slurm(ports, alive):
    """Her srun listens for Slurm's messages about her job step: messages without a munge credential of Slurm's must
    change nothing (a step cancelled by a forged message would stop her engines)."""
    sent = 0
    for port in ports:
        for junk in (b"\x00\x00\x00\x10" + os.urandom(16), os.urandom(512), b"\x00" * 64):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                    s.sendall(junk)
                    sent += 1
            except OSError:
                pass
    time.sleep(3)
    gone = [p for p in alive if not os.path.exists(f"/proc/{p}")]
    result("1 forged messages to her srun", sent > 0 and not gone,
           f"{sent} forged message(s) to {len(ports)} srun port(s); her processes gone since: {gone or 'none'}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--control":
        control(sys.argv[2])
    ap = argparse.ArgumentParser()
    ap.add_argument("--victim", required=True)
    ap.add_argument("--pids", required=True, help="the victim's kernel and engine processes")
    ap.add_argument("--checkout", required=True, help="the instructor's checkout (reference answers)")
    ap.add_argument("--lessons", required=True, help="the lessons the lab gives students")
    ap.add_argument("--jupyter-ports", default="", help="the victim's Jupyter server and kernel ports (signed protocols)")
    ap.add_argument("--slurm-ports", default="", help="the victim's srun ports (Slurm's own, munge-authenticated)")
    a = ap.parse_args()
    victim = pwd.getpwnam(a.victim)
    pids = [int(p) for p in a.pids.split(",") if p]
    alive = [p for p in pids if os.path.exists(f"/proc/{p}")]
    if not alive:
        print("FAIL setup: none of the victim's processes runs", flush=True)
        sys.exit(1)

    # 1: her MPJ daemon, starter and ranks listen, but not on this machine's network (a private one), so another
    # account can neither run a class as her through them nor enter their network. What of hers listens there is
    # Jupyter's own: her server (behind the hub's log-in) and her kernels (every message signed with a key only she
    # reads), which the next attack tries, and, on a lab run by Slurm, her srun's (Slurm checks every message with
    # munge), tried after it.
    jupyter = {int(p) for p in a.jupyter_ports.split(",") if p}
    slurm = {int(p) for p in a.slurm_ports.split(",") if p}
    ports = listening_ports(uid=victim.pw_uid)
    result("1 her MPJ daemon, starter or ranks reachable", not (ports - jupyter - slurm),
           f"ports of {a.victim} listening on the machine's network: {sorted(ports)}, of which Jupyter's own:"
           f" {sorted(ports & jupyter)}, Slurm's own: {sorted(ports & slurm)}")
    if slurm:
        forge_slurm(sorted(ports & slurm), alive)
    planted = f"/tmp/m2n-attack-{uuid.uuid4().hex}"
    answered = [p for p in sorted(ports) if send_execute(p, f'new java.io.File("{planted}").createNewFile()')]
    time.sleep(3)
    result("1 running code in her kernel with a forged message", not os.path.exists(planted),
           f"{len(ports)} port(s) of hers sent an execute request signed with a made-up key;"
           f" {'the code ran: ' + planted + ' exists' if os.path.exists(planted) else 'nothing ran'}"
           f"{'; replies from ' + str(answered) if answered else ''}")
    ranks = [p for p in alive if any("NiodevBoot" in w or "DaemonBoot" in w for w in cmdline(p))]
    if ranks:
        r = subprocess.run(["nsenter", "--target", str(ranks[0]), "--user", "--net", "--preserve-credentials", "--", "true"],
                           capture_output=True, text=True, timeout=30)
        result("1 entering her job's network", r.returncode != 0, f"nsenter said: {(r.stderr or r.stdout).strip()}")
    else:
        result("1 entering her job's network", False, "no rank or daemon process of hers to try")

    # 2: stopping her engines.
    refused = 0
    for p in alive:
        try:
            os.kill(p, signal.SIGTERM)
        except PermissionError:
            refused += 1
        except ProcessLookupError:
            refused += 1
    result("2 stopping her engines", refused == len(alive), f"{refused} of {len(alive)} signals refused")

    # 3: her engines' token (environment, command line) and her kernel's socket.
    readable = []
    for p in alive:
        try:
            with open(f"/proc/{p}/environ", "rb") as f:
                f.read()
            readable.append(p)
        except OSError:
            pass
    result("3 reading her processes' environment", not readable, f"readable: {readable or 'none'}")
    # (a kernel's connection file is named by its id; the file is hers alone, 0600, which item 1 relies on)
    shown = [p for p in alive if TOKEN.search(" ".join(w for w in cmdline(p) if not w.endswith(".json")))]
    result("3 a token on her command lines", not shown, f"processes with a token-like argument: {shown or 'none'}")
    socks = sorted({w for p in alive for w in cmdline(p) if w.endswith("/kernel.sock")})
    if socks:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(socks[0])
            connected = True
        except OSError as e:
            connected, why = False, e
        finally:
            s.close()
        result("3 connecting to her kernel's socket", not connected, f"{socks[0]}: {'connected' if connected else why}")
    else:
        result("3 connecting to her kernel's socket", False, "her engines name no kernel socket")

    # 5, 6: her files in the shared temp folders and shared memory.
    shared = []
    for base in ("/tmp", "/dev/shm", "/var/tmp"):
        for path in glob.glob(os.path.join(base, "*")) + glob.glob(os.path.join(base, ".*")):
            try:
                st = os.lstat(path)
            except OSError:
                continue
            # the JVM's hsperfdata folder lists her JVMs' pids, which ps shows anyway
            if st.st_uid == victim.pw_uid and st.st_mode & 0o077 and not os.path.basename(path).startswith("hsperfdata_"):
                shared.append(f"{path} ({oct(st.st_mode & 0o777)})")
    result("5/6 her files open to others in /tmp, /dev/shm, /var/tmp", not shared, ", ".join(shared) or "none")
    for base in ("/tmp", "/dev/shm"):
        own = os.path.join(base, f"mpi2nccl-{a.victim}")
        try:
            os.listdir(own)
            result(f"5/6 listing {own}", False, "listed")
        except FileNotFoundError:
            result(f"5/6 listing {own}", True, "not there")
        except PermissionError:
            result(f"5/6 listing {own}", True, "permission denied")

    # 7: her workspace, and the reference answers.
    for path in (victim.pw_dir, os.path.join(victim.pw_dir, "mpi2nccl")):
        try:
            os.listdir(path)
            result(f"7 listing {path}", False, "listed")
        except PermissionError:
            result(f"7 listing {path}", True, "permission denied")
    try:
        os.listdir(os.path.join(a.checkout, "notebooks"))
        result("7 the instructor's notebooks (reference answers)", False, "listed")
    except PermissionError:
        result("7 the instructor's notebooks (reference answers)", True, "permission denied")
    answers = [f for f in glob.glob(os.path.join(a.lessons, "*.ipynb")) if "BEGIN SOLUTION" in open(f).read()]
    result("7 reference answers in the lessons the lab gives", not answers, f"{answers or 'none'}")

    if failures:
        print(f"{len(failures)} attack(s) succeeded: {', '.join(failures)}", flush=True)
        sys.exit(1)
    print("every attack failed", flush=True)


if __name__ == "__main__":
    main()
