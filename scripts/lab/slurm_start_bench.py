"""How long `%mpj start -np N` takes under Slurm against the local launcher, in the lab's own kernel: each launcher
ROUNDS times, alternating, with kernels started from copies of the lab's kernelspec that differ only in
MPI2NCCL_LAUNCHER. Prints each start's seconds (the kernel's own "ready (..., X s)"), the medians and their ratio.
Run on a lab server where Slurm runs (./build.sh lab start), as any user:

    /usr/bin/python3 scripts/lab/slurm_start_bench.py [-np 4] [--rounds 5] [--device multicore]
"""
import argparse
import json
import os
import re
import statistics
import tempfile

from jupyter_client.manager import KernelManager

LAB_SPEC = "/usr/local/share/jupyter/kernels/mpi2nccl-java/kernel.json"


def start_seconds(spec_dir, ranks, device):
    os.environ["JUPYTER_PATH"] = spec_dir
    km = KernelManager(kernel_name="mpi2nccl-java")
    km.start_kernel()
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        msg_id = kc.execute(f"%mpj start -np {ranks} --device {device}")
        text = ""
        while True:
            msg = kc.get_iopub_msg(timeout=240)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] in ("execute_result", "error", "stream"):
                text += json.dumps(msg["content"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        m = re.search(r"ready \(\w+, ([0-9.]+) s\)", text)
        if not m:
            raise SystemExit(f"the engines did not start: {text[:500]}")
        return float(m.group(1))
    finally:
        km.shutdown_kernel(now=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-np", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--device", default="multicore")
    a = ap.parse_args()
    with open(LAB_SPEC) as f:
        spec = json.load(f)
    dirs = {}
    for launcher in ("local", "slurm"):
        d = tempfile.mkdtemp(prefix=f"slurm-bench-{launcher}-")
        os.makedirs(f"{d}/kernels/mpi2nccl-java")
        s = dict(spec, env=dict(spec.get("env", {}), MPI2NCCL_LAUNCHER=launcher))
        with open(f"{d}/kernels/mpi2nccl-java/kernel.json", "w") as f:
            json.dump(s, f)
        dirs[launcher] = d
    times = {"local": [], "slurm": []}
    for r in range(a.rounds):
        for launcher in ("local", "slurm"):
            t = start_seconds(dirs[launcher], a.np, a.device)
            times[launcher].append(t)
            print(f"round {r + 1} {launcher}: %mpj start -np {a.np} --device {a.device} ready in {t:.2f} s", flush=True)
    local, slurm = statistics.median(times["local"]), statistics.median(times["slurm"])
    print(f"median: local {local:.2f} s, slurm {slurm:.2f} s, slurm/local {slurm / local:.2f}x")


if __name__ == "__main__":
    main()
