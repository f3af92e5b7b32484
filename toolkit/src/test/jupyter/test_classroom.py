"""Two students' kernels at once on one machine: their rank engines (niodev: a JVM per rank and an MPJ daemon each)
start and compute side by side without a port or daemon collision, and the GPU lease of one is refused to the
other with the holder named (the lock files are real and shared by the two kernel processes; on this CPU machine
the GPUs are configuration: the grants name GPUs that the engines do not open).

Run by ./build.sh test (Debian's python, JUPYTER_PATH=build/jupyter).
"""
import os
import socket
import stat
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

from kernel_client import Kernel, descendants, pids_of, wait_gone

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "notebooks", "test", "lab"))
from neighbours import cmdline, listening_ports, socket_inodes  # noqa: E402  (notebooks/test/lab/neighbours.py)

LEASE = ('var lease = org.mpi2nccl.lab.GpuLease.acquire("{user}", new org.mpi2nccl.lab.LabConfig.Grant('
         'List.of({gpus}), "the test"), 2, java.nio.file.Path.of("{locks}"));\nlease.gpus()')


class TwoStudents(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.locks = tempfile.mkdtemp(prefix="gpu-locks-")
        cls.addClassCleanup(shutil.rmtree, cls.locks, True)
        cls.alice, cls.bob = Kernel(), Kernel()
        cls.addClassCleanup(cls.alice.shutdown)
        cls.addClassCleanup(cls.bob.shutdown)

    def both(self, code, timeout=180):
        """Runs code in both kernels at the same time; returns (alice's result, bob's result)."""
        results = {}
        threads = [threading.Thread(target=lambda k=k, n=n: results.__setitem__(n, k.execute(code, timeout=timeout)))
                   for n, k in (("alice", self.alice), ("bob", self.bob))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results["alice"], results["bob"]

    def test_1_engines_of_two_kernels_run_side_by_side(self):
        a, b = self.both("%mpj start -np 2 --device niodev")
        self.assertTrue(a.ok, a.describe())
        self.assertTrue(b.ok, b.describe())
        a, b = self.both("%%mpj\ndouble[] x = {rank + 1.0}, s = new double[1];\n"
                         "MPI.COMM_WORLD.Allreduce(x, 0, s, 0, 1, MPI.DOUBLE, MPI.SUM);\ns[0]")
        for r in (a, b):
            self.assertTrue(r.ok, r.describe())
            self.assertEqual("[rank 0] 3.0\n[rank 1] 3.0", r.result["text/plain"])
        pa, pb = pids_of(self.alice.execute("%mpj pids")), pids_of(self.bob.execute("%mpj pids"))
        self.assertGreaterEqual(len(pa), 2)  # the rank JVMs, and the job's daemon and starter
        self.assertGreaterEqual(len(pb), 2)
        self.assertFalse(set(pa) & set(pb), f"the kernels share engines: {pa} {pb}")
        a, b = self.both("%mpj stop")
        self.assertTrue(a.ok and b.ok, a.describe() + b.describe())
        self.assertEqual([], wait_gone(pa + pb), "engines left running")

    def test_2_a_taken_gpu_is_refused_with_its_holder(self):
        a = self.alice.execute(LEASE.format(user="alice", gpus='"0", "1"', locks=self.locks))
        self.assertTrue(a.ok, a.describe())
        self.assertEqual("[0, 1]", a.result["text/plain"])
        b = self.bob.execute(LEASE.format(user="bob", gpus='"1", "2"', locks=self.locks))
        self.assertFalse(b.ok)
        self.assertIn(f"GPU 1 is used by alice (pid {self.alice.pid}", b.error[1] + b.error[2])
        self.assertTrue(self.alice.execute("lease.close();").ok)
        b = self.bob.execute(LEASE.format(user="bob", gpus='"1", "2"', locks=self.locks))
        self.assertTrue(b.ok, b.describe())
        self.assertEqual("[1, 2]", b.result["text/plain"])
        self.assertTrue(self.bob.execute("lease.close();").ok)

    def test_3_nothing_of_her_engines_answers_another_user(self):
        why = private_network_missing()
        if why:
            self.skipTest(why)
        r = self.alice.execute("%mpj start -np 2 --device niodev", timeout=180)
        self.assertTrue(r.ok, r.describe())
        try:
            pids = sorted(set(pids_of(self.alice.execute("%mpj pids")) + descendants(self.alice.pid)))
            ports = set()
            for pid in pids:
                ports |= listening_ports(pid, inodes=socket_inodes(pid))
            self.assertGreaterEqual(len(ports), 3, f"her daemon and two ranks listen (in their own network): {ports}")
            ours = listening_ports()
            for port in sorted(ports - ours):
                with socket.socket() as s:
                    s.settimeout(0.5)
                    self.assertNotEqual(0, s.connect_ex(("127.0.0.1", port)),
                                        f"port {port} of her engines' job answers another process of the machine")
            # Her engines reach her kernel through a socket file in her private folder.
            socks = [a for pid in pids for a in cmdline(pid) if a.endswith("/kernel.sock")]
            self.assertTrue(socks, "the engines were given the kernel's socket")
            folder = os.stat(os.path.dirname(socks[0]))
            self.assertEqual(0o700, stat.S_IMODE(folder.st_mode), f"{socks[0]}'s folder is private")
            self.assertEqual(os.getuid(), folder.st_uid)
        finally:
            self.assertTrue(self.alice.execute("%mpj stop", timeout=60).ok)


def private_network_missing():
    """Why this machine cannot give a job a network of its own (bubblewrap), or "" when it can."""
    try:
        subprocess.run(["bwrap", "--unshare-user", "--unshare-net", "--dev-bind", "/", "/", "--", "true"],
                       check=True, capture_output=True, timeout=10)
        return ""
    except (OSError, subprocess.SubprocessError) as e:
        return f"skipped: bubblewrap cannot make a network namespace here ({e})"


if __name__ == "__main__":
    unittest.main()
