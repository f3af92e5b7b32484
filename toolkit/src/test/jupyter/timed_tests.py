"""The kernel's tests as `python3 -m unittest -v MODULE...` runs them, and then the slowest five with their seconds:
the kernel part's time varies from run to run, and this says where it went.

    /usr/bin/python3 timed_tests.py test_faults test_parent ...      (run_both.sh runs each group this way)
"""
import sys
import time
import unittest


class TimedResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seconds = []

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        self.seconds.append((time.monotonic() - self._started, test.id()))
        super().stopTest(test)


def main():
    suite = unittest.defaultTestLoader.loadTestsFromNames(sys.argv[1:])
    result = unittest.TextTestRunner(verbosity=2, resultclass=TimedResult).run(suite)
    print("slowest:")
    for seconds, name in sorted(result.seconds, reverse=True)[:5]:
        print(f"  {seconds:6.1f} s  {name}")
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
