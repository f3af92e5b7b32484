#!/usr/bin/env python3
"""Figures of several alternating rounds (Java, PyTorch, Java, PyTorch, ...: cuda-bench.sh runs
them), so a drift of the GPU's clocks or temperature during the run hits both sides alike. Per measurement: each
side's median of its round medians, the rounds themselves, and the target: GEMM within 5% of PyTorch's cuBLAS
(java/torch >= 0.95), the CNN train step no slower than PyTorch eager (java/torch >= 1.00 in samples/s).
Usage: gemm_rounds.py gemm-java-1.json gemm-torch-1.json gemm-java-2.json ... (file names say the side)
"""
import json
import statistics
import sys

TARGETS = {"gemm": (0.95, "within 5% of cuBLAS via torch"), "train": (1.00, "not slower than PyTorch eager")}


def main():
    rounds = {"java": {}, "torch": {}}
    groups = {}
    for path in sys.argv[1:]:
        side = "torch" if "torch" in path.rsplit("/", 1)[-1] else "java"
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"rounds: {path} unreadable ({e}): left out")
            continue
        for r in doc["results"]:
            if r["group"] in TARGETS:
                rounds[side].setdefault(r["name"], []).append(r["value"])
                groups[r["name"]] = r["group"]
    print(f"{'measurement':52s} {'java median':>12s} {'torch median':>13s} {'java/torch':>10s}  rounds  target")
    met = total = 0
    for name, java in rounds["java"].items():
        other_route = "[" in name                 # "sgemm 4096^3 tf32 [gemm_ex]": the same GEMM, the other cuBLAS call
        torch = rounds["torch"].get(name.split(" [")[0])
        jm = statistics.median(java)
        line = f"{name:52s} {jm:12.2f} "
        if torch:
            tm = statistics.median(torch)
            ratio = jm / tm
            bound, what = TARGETS[groups[name]]
            ok = ratio >= bound
            line += f"{tm:13.2f} {ratio:10.3f}  java {' '.join(f'{v:.1f}' for v in java)} / torch {' '.join(f'{v:.1f}' for v in torch)}"
            if other_route:
                line += "  (the other cuBLAS route: for comparison, not the target row)"
            else:
                met += ok
                total += 1
                line += f"  {'MET' if ok else 'MISSED'} ({what}: >= {bound:.2f}x)"
        else:
            line += f"{'-':>13s} {'-':>10s}  java {' '.join(f'{v:.1f}' for v in java)}  (no PyTorch figure)"
        print(line)
    counts = {side: max((len(v) for v in rounds[side].values()), default=0) for side in rounds}
    print(f"rounds: {counts['java']} Java and {counts['torch']} PyTorch; targets met {met} of {total}")


if __name__ == "__main__":
    main()
