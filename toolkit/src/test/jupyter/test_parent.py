"""The process that started a kernel dies without shutting it down (a Jupyter server or nbclient killed): the
kernel notices within seconds and ends itself and its rank engines, so nothing of it runs on a shared machine."""
import json
import os
import signal
import subprocess
import sys
import time
import unittest

from kernel_client import alive, descendants, wait_gone

HERE = os.path.dirname(os.path.abspath(__file__))

# The stand-in for Jupyter: starts a kernel and its engines, prints their pids, then waits to be killed.
PARENT = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from kernel_client import Kernel, descendants, pids_of
k = Kernel()
r = k.execute("%mpj start -np 2 --device niodev", timeout=180)
assert r.ok, r.describe()
pids = sorted(set(pids_of(k.execute("%mpj pids")) + descendants(k.pid)))
print(json.dumps({"kernel": k.pid, "all": pids, "connection": k.km.connection_file}), flush=True)
time.sleep(600)
"""


class ParentDies(unittest.TestCase):
    def test_the_kernel_and_its_engines_end_when_the_process_that_started_them_is_killed(self):
        parent = subprocess.Popen([sys.executable, "-c", PARENT, HERE], stdout=subprocess.PIPE, text=True,
                                  start_new_session=True)
        pids = []
        connection = None
        try:
            line = parent.stdout.readline()
            self.assertTrue(line, "the stand-in parent printed no pids")
            started = json.loads(line)
            connection = started["connection"]   # the killed client cannot remove it: this test does
            pids = [started["kernel"]] + started["all"]
            self.assertGreaterEqual(len(started["all"]), 2, f"the engines' processes were seen: {started}")
            self.assertTrue(alive(started["kernel"]))
            os.kill(parent.pid, signal.SIGKILL)
            parent.wait(10)
            t0 = time.monotonic()
            left = wait_gone(pids, timeout=15)
            self.assertEqual([], left, "processes of the orphaned kernel still running")
            print(f"kernel and {len(pids) - 1} engine process(es) gone {time.monotonic() - t0:.1f} s after their"
                  f" parent was killed", flush=True)
        finally:
            if connection and os.path.exists(connection):
                os.remove(connection)
            if parent.poll() is None:
                parent.kill()
            for pid in pids + descendants(parent.pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


if __name__ == "__main__":
    unittest.main()
