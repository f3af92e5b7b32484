"""No secret on a command line: every user of the machine reads /proc/PID/cmdline, so a rank engine's token there
would let another student's program pose as her engines (receive her cells, forge their output). The token travels
in the environment, which only the process's own user reads."""
import re
import unittest

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


if __name__ == "__main__":
    unittest.main()
