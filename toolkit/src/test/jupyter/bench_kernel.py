"""The kernel's measured targets: kernel start to first result, %mpj start -np 4, a trivial %%mpj cell on 4 warm
engines. Prints a table and writes JSON (machine, runs, every sample).

    JUPYTER_PATH=build/jupyter /usr/bin/python3 toolkit/src/test/jupyter/bench_kernel.py [--runs 3] [--out F]
"""
import argparse
import json
import os
import platform
import statistics
import time

from kernel_client import Kernel

TARGETS = {"kernel_start_to_first_result_s": 3.0, "mpj_start_np4_s": 3.0, "mpj_trivial_cell_s": 0.3}
# Wall times on a shared 2-core machine follow the load; the CPU the engines' processes used to start does not
# (much): engine CPU is the figure to compare between versions.


def cpu_seconds(pid):
    """user + system CPU time of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def engine_cpu_seconds(k):
    """CPU used so far by every process of the running engines (%mpj pids)."""
    r = k.execute("%mpj pids")
    assert r.ok, r.describe()
    pids = [int(p) for p in r.result["text/plain"].strip("[] ").split(",") if p.strip()]
    total = 0.0
    for p in pids:
        try:
            total += cpu_seconds(p)
        except FileNotFoundError:
            pass
    return total


def first_result_seconds():
    t0 = time.monotonic()
    k = Kernel()
    try:
        r = k.execute("1 + 1")
        assert r.result["text/plain"] == "2", r.describe()
        return time.monotonic() - t0, k
    except Exception:
        k.shutdown()
        raise


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3, help="kernels started (each measures start and %%mpj start)")
    ap.add_argument("--cells", type=int, default=20, help="trivial %%mpj cells timed per kernel")
    ap.add_argument("--device", default="multicore")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()

    samples = {"kernel_start_to_first_result_s": [], "mpj_start_np4_s": [], "mpj_start_np4_engine_cpu_s": [],
               "mpj_trivial_cell_s": []}
    load_at_start = os.getloadavg()[0]
    for _ in range(a.runs):
        seconds, k = first_result_seconds()
        samples["kernel_start_to_first_result_s"].append(seconds)
        try:
            r = k.execute(f"%mpj start -np 4 --device {a.device}", timeout=180)
            assert r.ok, r.describe()
            samples["mpj_start_np4_s"].append(r.elapsed)
            samples["mpj_start_np4_engine_cpu_s"].append(engine_cpu_seconds(k))
            assert k.execute("%%mpj\nrank").ok  # the first cell compiles more of JShell: not counted
            for _ in range(a.cells):
                r = k.execute("%%mpj\nrank")
                assert r.ok and "[rank 3] 3" in r.result["text/plain"], r.describe()
                samples["mpj_trivial_cell_s"].append(r.elapsed)
        finally:
            k.shutdown()

    report = {
        "machine": {"host": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_avg_1min_start": load_at_start,
                    "load_avg_1min_end": os.getloadavg()[0]},
        "device": a.device,
        "runs": a.runs,
        "cells_per_run": a.cells,
        "samples": samples,
        "median": {k: statistics.median(v) for k, v in samples.items()},
        "max": {k: max(v) for k, v in samples.items()},
        "targets": TARGETS,
    }
    print(f"{'measure':36} {'median':>8} {'max':>8} {'target':>8}  samples")
    for key, v in samples.items():
        target = f"{TARGETS[key]:8.1f}" if key in TARGETS else f"{'(cpu)':>8}"
        print(f"{key:36} {statistics.median(v):8.3f} {max(v):8.3f} {target}  {len(v)}")
    print(f"(load average {load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, on {os.cpu_count()} CPUs)")
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
