"""Faults a careless student (or a hostile tester) makes, over the Jupyter protocol: a rank that skips a
collective (the stall inspector), System.exit through Runtime in a cell, an interrupt during %mpj start, a rank
printing without end. Each asserts the time to the message and that no process is left (by pid).

Run by ./build.sh test (Debian's python, JUPYTER_PATH=build/jupyter), with the other kernel tests.
"""
import threading
import time
import unittest

from kernel_client import Kernel, descendants, pids_of, wait_gone

STALL_WARNING = "wait in Barrier (cell line 3)"


class StallInspector(unittest.TestCase):
    """One rank skips a barrier: the others' wait is named within the stall delay, the kernel never kills."""

    def run_skipped_barrier(self, device, stall_s, config):
        k = Kernel()
        try:
            if config:
                self.assertTrue(k.execute(f"%mpj config --stall {stall_s}s").ok)
            r = k.execute(f"%mpj start -np 3 --device {device}", timeout=180)
            self.assertTrue(r.ok, r.describe())
            pids = pids_of(k.execute("%mpj pids")) + descendants(k.pid)
            warned = {}
            t0 = time.monotonic()

            def on_message(msg):
                if msg["msg_type"] == "stream" and STALL_WARNING in msg["content"]["text"] and "at" not in warned:
                    warned["at"] = time.monotonic() - t0
                    warned["text"] = msg["content"]["text"]
                    threading.Timer(0.5, k.interrupt).start()   # the student decides: the kernel never kills

            r = k.execute("%%mpj\nint me = rank;\nif (rank != 1) MPI.COMM_WORLD.Barrier();", timeout=stall_s + 60,
                          on_message=on_message)
            self.assertIn("at", warned, "no stall warning: " + r.describe())
            self.assertLess(warned["at"], stall_s + 5, f"warned after {warned['at']:.1f} s")
            self.assertIn(f"ranks 0 and 2 {STALL_WARNING} for {stall_s} s; rank 1 finished the cell: a rank"
                          f" skipped a collective?", warned["text"])
            self.assertFalse(r.ok, "the interrupted cell fails")
            start = time.monotonic()
            self.assertEqual("2", k.execute("1+1").result["text/plain"])
            self.assertLess(time.monotonic() - start, 2)
        finally:
            k.shutdown()
        self.assertEqual([], wait_gone(pids), "every engine process should be gone")

    def test_multicore_with_the_default_delay(self):
        self.run_skipped_barrier("multicore", 10, config=False)

    def test_niodev_with_a_configured_delay(self):
        self.run_skipped_barrier("niodev", 3, config=True)


class ExitThroughAVariable(unittest.TestCase):
    """Runtime r = Runtime.getRuntime(); r.exit(0): refused from the compiled class, in the kernel and on ranks."""

    def test_kernel_and_rank_cells_refuse_exit_the_source_does_not_show(self):
        k = Kernel()
        try:
            for code in ["Runtime r = Runtime.getRuntime();\nr.exit(0);",
                         "java.util.function.IntConsumer bye = Runtime.getRuntime()::halt;"]:
                start = time.monotonic()
                r = k.execute(code)
                self.assertFalse(r.ok, r.describe())
                self.assertIn("is not allowed in a cell: the kernel keeps running", r.error[2])
                self.assertLess(time.monotonic() - start, 5)
            self.assertEqual("2", k.execute("1+1").result["text/plain"])
            self.assertTrue(k.execute("%mpj start -np 2", timeout=120).ok)
            pids = pids_of(k.execute("%mpj pids"))
            r = k.execute("%%mpj\nRuntime r = Runtime.getRuntime();\nif (rank == 1) r.exit(3);", timeout=60)
            self.assertFalse(r.ok, r.describe())
            self.assertIn("Runtime.exit is not allowed in a cell", r.error[2])
            r = k.execute("%%mpj\nrank", timeout=60)
            self.assertTrue(r.ok, "the engines live on: " + r.describe())
        finally:
            k.shutdown()
        self.assertEqual([], wait_gone(pids), "every engine process should be gone")


class InterruptDuringStart(unittest.TestCase):
    """An interrupt during %mpj start -np 6 (niodev) stops the start and every process it started."""

    def test_interrupt_stops_the_start_and_cleans_up(self):
        k = Kernel()
        try:
            pids = set()
            interrupted = {}

            def interrupt():
                pids.update(descendants(k.pid))   # the daemon, starter and rank JVMs started so far
                interrupted["at"] = time.monotonic()
                k.interrupt()

            timer = threading.Timer(3, interrupt)
            timer.start()
            r = k.execute("%mpj start -np 6 --device niodev", timeout=120,
                          on_message=lambda _m: pids.update(descendants(k.pid)))
            ended = time.monotonic()
            timer.join()
            self.assertFalse(r.ok, r.describe())
            self.assertIn("interrupted", r.error[2])
            took = ended - interrupted["at"]
            self.assertLess(took, 5, f"the start ended {took:.1f} s after the interrupt")
            self.assertTrue(pids, "the start had begun processes")
            self.assertEqual([], wait_gone(sorted(pids), timeout=10), "every process of the interrupted start should be gone")
            self.assertEqual("2", k.execute("1+1").result["text/plain"])
            self.assertIn("no rank engines", k.execute("%mpj status").result["text/plain"])
        finally:
            k.shutdown()


if __name__ == "__main__":
    unittest.main()
