"""No secret on a command line: every user of the machine reads /proc/PID/cmdline, so a rank engine's token there
would let another student's program pose as her engines (receive her cells, forge their output). The token travels
in the environment, which only the process's own user reads."""
import json
import os
import re
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "notebooks", "test", "lab"))
from neighbours import send_execute  # noqa: E402  (notebooks/test/lab/neighbours.py)
from kernel_client import Kernel, descendants, pids_of

TOKEN_ENV = "MPI2NCCL_ENGINE_TOKEN"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace").split("\0")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return []


class EngineToken(unittest.TestCase):
    def check_device(self, k, device):
        r = k.execute(f"%mpj start -np 2 --device {device}", timeout=180)
        self.assertTrue(r.ok, r.describe())
        try:
            pids = sorted(set(pids_of(k.execute("%mpj pids")) + descendants(k.pid)))
            tokens = set()
            for pid in pids:
                for var in read(f"/proc/{pid}/environ"):
                    if var.startswith(TOKEN_ENV + "="):
                        tokens.add(var.split("=", 1)[1])
            self.assertEqual(1, len(tokens), f"{device}: one token, in the environment of the engines' processes")
            token = tokens.pop()
            for pid in pids:
                cmdline = " ".join(read(f"/proc/{pid}/cmdline"))
                self.assertNotIn(token, cmdline, f"{device}: the token is on the command line of process {pid}")
                self.assertIsNone(UUID.search(cmdline), f"{device}: something like a token on process {pid}'s command"
                                                        f" line: {cmdline}")
        finally:
            self.assertTrue(k.execute("%mpj stop", timeout=60).ok)

    def test_the_token_is_in_the_environment_and_on_no_command_line(self):
        k = Kernel()
        try:
            self.check_device(k, "niodev")
            self.check_device(k, "multicore")
        finally:
            k.shutdown()


class ForgedMessages(unittest.TestCase):
    """Another user of the machine can connect to a kernel's ports on 127.0.0.1 but cannot read its key: an execute
    request signed with a made-up key must not run, and must not stop the kernel from running its own cells."""

    def test_a_forged_request_is_dropped_and_the_kernel_goes_on(self):
        k = Kernel()
        try:
            with open(k.km.connection_file) as f:
                info = json.load(f)
            planted = os.path.join(tempfile.gettempdir(), f"m2n-forged-{uuid.uuid4().hex}")
            code = f'new java.io.File("{planted}").createNewFile()'
            for port in ("shell_port", "control_port"):
                self.assertFalse(send_execute(info[port], code, b"not-the-key"), f"the kernel answered on {port}")
            r = k.execute("1 + 1", timeout=30)
            self.assertTrue(r.ok, "the kernel runs its own cells after forged messages: " + r.describe())
            self.assertEqual("2", r.result["text/plain"])
            self.assertFalse(os.path.exists(planted), "the forged request's code ran")
            # The control: the same request signed with the kernel's key runs (the refusal above is the signature).
            send_execute(info["shell_port"], code, info["key"].encode())
            deadline = time.monotonic() + 30
            while not os.path.exists(planted) and time.monotonic() < deadline:
                time.sleep(0.1)
            self.assertTrue(os.path.exists(planted), "the request signed with the kernel's key ran")
            os.remove(planted)
        finally:
            k.shutdown()


if __name__ == "__main__":
    unittest.main()
