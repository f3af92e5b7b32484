#!/usr/bin/env python3
"""Nsight Compute's CSV (ncu --csv --metrics gpu__time_duration.sum) of the kernels of profiled training steps,
summed by kernel name, largest first, with each one's share of the total: where a step's GPU time goes.
Usage: kernel_times.py NCU.csv [STEPS]  (STEPS: how many steps the range held, to print per-step times)."""
import collections
import csv
import sys


def main():
    path = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]   # ncu prints its own lines before the CSV
    rows = [r for r in csv.DictReader(lines) if r.get("Metric Name") == "gpu__time_duration.sum"]
    if not rows:
        sys.exit(f"{path}: no gpu__time_duration.sum rows (was the step range profiled? ncu --profile-from-start off)")
    scale = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}
    total = collections.OrderedDict()
    count = collections.Counter()
    for r in rows:
        name = r["Kernel Name"].split("(")[0][:80]
        ms = float(r["Metric Value"].replace(",", "")) * scale.get(r["Metric Unit"], 1e-6)
        total[name] = total.get(name, 0.0) + ms
        count[name] += 1
    whole = sum(total.values())
    print(f"{len(rows)} kernels in {steps} step(s): {whole / steps:.3f} ms of kernel time per step")
    print(f"{'ms/step':>9} {'share':>6} {'calls/step':>10}  kernel")
    for name, ms in sorted(total.items(), key=lambda kv: -kv[1]):
        print(f"{ms / steps:9.3f} {100 * ms / whole:5.1f}% {count[name] / steps:10.1f}  {name}")


if __name__ == "__main__":
    main()
