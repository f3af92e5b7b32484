#!/usr/bin/env python3
"""Per-step phase times of speedup-experiment runs, read from their ranks.csv files (issue 7).

Usage: step_phases.py RUN_DIR [RUN_DIR ...]   (each a `mpi2nccl run --out` folder, or a folder holding several)
Within one run the report does the same (bench.StepCosts, "per step" in index.html and on the terminal); this
script compares runs made separately (a probe's 2-GPU variants against its 1-GPU run).
For every (route, ranks) of each run: the median epoch, and per step (epoch time over steps per epoch) the
GPU time of each phase and the time between the phases, averaged over the epochs after the first and over
the ranks; then the difference of each N-rank row from the 1-rank row of the same run (a run without one is
compared with the last 1-rank row before it, in the order of the folders' names).
"""
import csv, os, statistics, sys

PHASES = ["forward_s", "backward_s", "comm_s", "optimizer_s"]


def runs(paths):
    for p in paths:
        for root, _, files in os.walk(p):
            if "ranks.csv" in files:
                yield root


def steps_per_epoch(root, ranks):
    # the report's log says "N steps per epoch" per run; fall back to Fashion-MNIST's 60000 examples at 128 per rank
    log = root + ".txt"
    if os.path.exists(log):
        for line in open(log, errors="replace"):
            if f" x{ranks} on " in line and "steps per epoch" in line:
                return int(line.split("steps per epoch")[0].rsplit(",", 1)[1].strip().split()[0])
    return None


def summarise(root):
    rows = list(csv.DictReader(open(os.path.join(root, "ranks.csv"))))
    out = {}
    for key in sorted({(r["route"], int(r["ranks"])) for r in rows}, key=lambda k: (k[1], k[0])):
        mine = [r for r in rows if (r["route"], int(r["ranks"])) == key]
        epochs = sorted({int(r["epoch"]) for r in mine})
        steady = [r for r in mine if int(r["epoch"]) > 1] or mine
        per_epoch = {}
        for r in mine:
            per_epoch.setdefault(int(r["epoch"]), []).append(float(r["epoch_s"]))
        median = statistics.median(max(v) for v in per_epoch.values())
        steps = steps_per_epoch(root, key[1])
        n = len(steady)
        vals = {p: sum(float(r[p]) for r in steady) / n for p in PHASES}
        vals["between"] = sum(float(r["epoch_s"]) for r in steady) / n - sum(vals.values())
        out[key] = (median, steps, vals, len(epochs))
    return out


def main():
    base = None
    for root in sorted(runs(sys.argv[1:])):
        s = summarise(root)
        print(root)
        base = s.get(("single", 1)) or next((v for k, v in s.items() if k[1] == 1), base)
        for (route, ranks), (median, steps, vals, epochs) in s.items():
            scale = 1e6 / steps if steps else 1e3
            unit = "us/step" if steps else "ms/epoch"
            line = f"  {route:7s} x{ranks}  median epoch {median:.4f} s  {epochs} epochs  {unit}: " + "  ".join(
                f"{k.replace('_s', '')} {v * scale:7.1f}" for k, v in vals.items())
            if base and ranks > 1 and steps and base[1]:
                line += f"   speedup {base[0] / median:.3f}x  vs 1 rank: " + "  ".join(
                    f"{k.replace('_s', '')} {v * scale - base[2][k] * 1e6 / base[1]:+6.1f}" for k, v in vals.items())
            print(line)


if __name__ == "__main__":
    main()
