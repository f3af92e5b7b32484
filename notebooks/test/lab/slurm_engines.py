"""Run as a student of a lab configured for Slurm: the lab's kernel (mpi2nccl-java) starts its rank engines as a
Slurm job step of this student, the ranks see the step's job id, a rank program the kernel launches runs as a step
too, and when the kernel is killed Slurm's job ends with it and no engine is left. Prints one line per check; exits
1 if any failed.

    runuser -u STUDENT -- /usr/bin/python3 slurm_engines.py
"""
import getpass
import os
import re
import signal
import subprocess
import sys
import time

from jupyter_client.manager import KernelManager

failures = []


def check(name, ok, detail):
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)
    if not ok:
        failures.append(name)


def execute(kc, code, timeout=180):
    """Runs a cell; returns (status, text/plain result or error text)."""
    msg_id = kc.execute(code)
    text = ""
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_iopub_msg(timeout=max(1, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind in ("execute_result", "display_data"):
            text += content["data"].get("text/plain", "")
        elif kind == "stream":
            text += content["text"]
        elif kind == "error":
            text += "\n".join(content["traceback"])
        elif kind == "status" and content["execution_state"] == "idle":
            break
    reply = kc.get_shell_msg(timeout=30)
    return reply["content"]["status"], text


def jobs_of(user, states=None):
    """[job id, name] of the user's jobs that run (or, with states="all", that ended minutes ago too)."""
    out = subprocess.run(["squeue", "--noheader", "--user", user, "--format=%i %j"]
                         + ([f"--states={states}"] if states else []), capture_output=True, text=True)
    return [line.split() for line in out.stdout.splitlines() if line.strip()]


def lab_kernel():
    """A kernel of the lab's kernelspec, as the hub starts it, and its client once it answers."""
    km = KernelManager(kernel_name="mpi2nccl-java")
    km.start_kernel()
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
    except Exception:
        km.shutdown_kernel(now=True)
        raise
    return km, kc


def main():
    me = getpass.getuser()
    km, kc = lab_kernel()
    kernel_pid = km.provisioner.process.pid
    try:
        # A GPU asked of a lab without any: srun refuses at once, and the cell says so with what to do.
        status, text = execute(kc, "%mpj start -np 2 --gpus 1")
        check("no GPU here", status == "error" and "Slurm did not run the job" in text and "--gpus 0" in text,
              f"%mpj start --gpus 1 on a node without GPUs: {text.strip()[:400]}")
        t0 = time.monotonic()
        status, text = execute(kc, "%mpj start -np 4 --gpus 0")
        check("start", status == "ok", f"%mpj start -np 4 --gpus 0 under Slurm in {time.monotonic() - t0:.1f} s: {text.strip()[:300]}")
        status, text = execute(kc, "%mpj status")
        check("status", status == "ok" and "one Slurm job step" in text, f"%mpj status says so: {text.strip()[:120]}")
        status, text = execute(kc, '%%mpj\nSystem.getenv("SLURM_JOB_ID")')
        ids = set(re.findall(r"\[rank \d\] \"?(\d+)\"?", text))
        check("one step", status == "ok" and len(ids) == 1, f"every rank runs in one Slurm job: {sorted(ids)} ({text.strip()[:200]})")
        job = ids.pop() if len(ids) == 1 else None
        listed = [j for j, name in jobs_of(me) if j == job]
        check("squeue", bool(listed), f"squeue lists job {job} as {me}'s: {jobs_of(me)}")
        earlier = {j for j, name in jobs_of(me, "all") if name == "mpi2nccl-PartialSum"}   # a run minutes ago
        status, text = execute(kc, "org.mpi2nccl.launch.Mpj.launch(org.mpi2nccl.launch.PartialSum.class).ranks(2)"
                                   ".run().reports().size()")
        sums = [j for j, name in jobs_of(me, "all") if name == "mpi2nccl-PartialSum" and j not in earlier]
        check("a rank program", status == "ok" and text.strip().endswith("2") and len(sums) == 1,
              f"a program the kernel launches ran as Slurm job {sums}: {text.strip()[:300]}")
        os.kill(kernel_pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while jobs_of(me) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = jobs_of(me)
        check("kernel killed", not left, f"Slurm's job ended within 60 s of the kernel's death: {left or 'none left'}")
        time.sleep(2)
        mine = subprocess.run(["pgrep", "-u", me, "-f", "RankEngine|MulticoreBoot|SlurmStep"], capture_output=True, text=True)
        check("no engine left", not mine.stdout.strip(), f"no engine process of {me} left: {mine.stdout.split() or 'none'}")
    finally:
        try:
            km.shutdown_kernel(now=True)
        except Exception:
            pass
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
