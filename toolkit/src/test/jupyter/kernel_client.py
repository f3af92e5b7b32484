"""A small client for the mpi2nccl kernel over the Jupyter protocol (jupyter_client, as Jupyter itself uses).

Used by the kernel tests and the kernel benchmark. Run with Debian's python (/usr/bin/python3) and
JUPYTER_PATH pointing at build/jupyter (build.sh sets both).
"""
import atexit
import os
import queue
import threading
import re
import subprocess
import time

from jupyter_client.manager import KernelManager

KERNEL_NAME = "mpi2nccl-java"
_running = []


@atexit.register
def _kill_leftovers():
    """A test that failed half-way must not leave its kernel (and its rank engines) behind."""
    for k in list(_running):
        try:
            k.km.shutdown_kernel(now=True)
        except Exception:
            pass


class Kernel:
    """One running kernel; execute() returns everything the cell produced."""

    # jupyter_client picks free ports, writes them to the connection file and lets them go; the kernel binds them a
    # moment later. On a busy machine another process (a rank engine, an MPJ daemon) can take one in between and
    # the kernel dies with "Address already in use" before it answers: a fresh start gets fresh ports. A kernel
    # that cannot start for a reason of its own dies the same way every time and still fails the test.
    START_ATTEMPTS = 3

    def __init__(self, startup_timeout=60):
        for attempt in range(1, self.START_ATTEMPTS + 1):
            self.started_at = time.monotonic()
            self.km = KernelManager(kernel_name=KERNEL_NAME)
            self.km.start_kernel()
            _running.append(self)
            self.client = self.km.client()
            self.client.start_channels()
            try:
                self.client.wait_for_ready(timeout=startup_timeout)
                break
            except RuntimeError as e:
                if "died before replying" not in str(e) or attempt == self.START_ATTEMPTS:
                    raise
                print(f"kernel start {attempt} died before replying (a port taken meanwhile?): starting again", flush=True)
                self.client.stop_channels()
                self.km.shutdown_kernel(now=True)
                _running.remove(self)
        self.ready_at = time.monotonic()

    @property
    def pid(self):
        return self.km.provisioner.process.pid

    def dump_threads_after(self, seconds, what):
        """Starts a timer: if not cancelled within seconds, prints the kernel JVM's threads (jcmd Thread.print) with
        what was waited for, so that a run where a step hangs says where the kernel was. Returns the timer."""
        pid = self.pid

        def dump():
            out = subprocess.run(["jcmd", str(pid), "Thread.print"], capture_output=True, text=True, timeout=60)
            print(f"\n  {what} took over {seconds} s; the kernel's threads:\n{out.stdout}{out.stderr}", flush=True)

        timer = threading.Timer(seconds, dump)
        timer.daemon = True
        timer.start()
        return timer

    def execute(self, code, timeout=120, on_message=None):
        """Runs a cell; returns a Result with the iopub messages of the cell and the shell reply."""
        t0 = time.monotonic()
        msg_id = self.client.execute(code, store_history=False)
        messages = []
        deadline = t0 + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"cell did not finish within {timeout} s: {code[:80]!r}")
            try:
                msg = self.client.get_iopub_msg(timeout=min(remaining, 1))
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if on_message:
                on_message(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
            messages.append(msg)
        while True:
            reply = self.client.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                return Result(messages, reply, time.monotonic() - t0)

    def _shell_request(self, msg_id, timeout):
        deadline = time.monotonic() + timeout
        while True:
            reply = self.client.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply["content"]

    def complete(self, code, cursor_pos=None, timeout=30):
        """Tab at cursor_pos (default: the end): the complete_reply's content."""
        return self._shell_request(self.client.complete(code, len(code) if cursor_pos is None else cursor_pos), timeout)

    def inspect(self, code, cursor_pos, timeout=30):
        """Shift-Tab at cursor_pos: the inspect_reply's content."""
        return self._shell_request(self.client.inspect(code, cursor_pos), timeout)

    def interrupt(self):
        self.km.interrupt_kernel()

    def shutdown(self):
        """A normal shutdown (shutdown_request); jupyter_client kills the kernel if it does not end in time."""
        self.client.stop_channels()
        self.km.shutdown_kernel(now=False)
        if self in _running:
            _running.remove(self)


class Result:
    def __init__(self, messages, reply, elapsed):
        self.messages = messages
        self.reply = reply
        self.elapsed = elapsed

    @property
    def ok(self):
        return self.reply["content"]["status"] == "ok"

    def of_type(self, *types):
        return [m for m in self.messages if m["msg_type"] in types]

    @property
    def stdout(self):
        return "".join(m["content"]["text"] for m in self.of_type("stream") if m["content"]["name"] == "stdout")

    @property
    def stderr(self):
        return "".join(m["content"]["text"] for m in self.of_type("stream") if m["content"]["name"] == "stderr")

    @property
    def result(self):
        """The execute_result's data, or None."""
        r = self.of_type("execute_result")
        return r[0]["content"]["data"] if r else None

    @property
    def error(self):
        """(ename, evalue, traceback text) of the error, or None."""
        e = self.of_type("error")
        if not e:
            return None
        c = e[0]["content"]
        return c["ename"], c["evalue"], "\n".join(c["traceback"])

    def describe(self):
        return f"status={self.reply['content']['status']} stdout={self.stdout!r} stderr={self.stderr!r} " \
               f"result={self.result!r} error={self.error!r}"


def alive(pid):
    """Whether a process runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def wait_gone(pids, timeout=20):
    """Waits until none of pids runs; returns those still running after the timeout."""
    deadline = time.monotonic() + timeout
    left = [p for p in pids if alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = [p for p in left if alive(p)]
    return left


def descendants(pid):
    """Every process below pid (from /proc)."""
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().split(") ", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(d))
            except (FileNotFoundError, ProcessLookupError, IndexError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


# Helpers of the protocol tests.

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def pids_of(result):
    """The list of pids printed by %mpj pids."""
    return [int(p) for p in re.findall(r"\d+", result.result["text/plain"])]


def job_homes(pids):
    """The private MPJ homes (/tmp/mpj-job-*) that these processes' command lines name (niodev's daemon)."""
    homes = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        for a in args:
            m = re.search(r"(/\S*/mpj-job-\d+)", a)
            if m and "daemon.jar" in " ".join(args):
                homes.add(m.group(1))
    return sorted(homes)


def interrupt_after(kernel, seconds):
    t = threading.Timer(seconds, kernel.interrupt)
    t.start()
    return t
