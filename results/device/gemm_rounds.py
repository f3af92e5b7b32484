#!/usr/bin/env python3
"""GEMM figures of several alternating rounds (Java, PyTorch, Java, PyTorch, ...: cuda-bench-check.sh runs them), so a
drift of the GPU's clocks or temperature during the run hits both sides alike. Per measurement: each side's median
of its round medians, the rounds themselves, and the ratio against the issue's target (within 5% of PyTorch's cuBLAS).
Usage: gemm_rounds.py gemm-java-1.json gemm-torch-1.json gemm-java-2.json ... (names say the side)
"""
import json
import statistics
import sys


def main():
    rounds = {"java": {}, "torch": {}}
    for path in sys.argv[1:]:
        side = "torch" if "torch" in path.rsplit("/", 1)[-1] else "java"
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"gemm rounds: {path} unreadable ({e}): left out")
            continue
        for r in doc["results"]:
            if r["group"] == "gemm":
                rounds[side].setdefault(r["name"], []).append(r["value"])
    print(f"{'measurement':52s} {'java median':>12s} {'torch median':>13s} {'java/torch':>10s}  rounds (TFLOP/s)  target")
    met = total = 0
    for name, java in rounds["java"].items():
        other_route = "[" in name                 # "sgemm 4096^3 tf32 [sgemm_math_mode]": the same GEMM, the other call
        torch = rounds["torch"].get(name.split(" [")[0])
        jm = statistics.median(java)
        line = f"{name:52s} {jm:12.2f} "
        if torch:
            tm = statistics.median(torch)
            ratio = jm / tm
            ok = ratio >= 0.95
            line += f"{tm:13.2f} {ratio:10.3f}  java {' '.join(f'{v:.1f}' for v in java)} / torch {' '.join(f'{v:.1f}' for v in torch)}"
            if other_route:
                line += "  (the other cuBLAS route: for comparison, not the target row)"
            else:
                met += ok
                total += 1
                line += f"  {'MET' if ok else 'MISSED'} (>= 0.95x)"
        else:
            line += f"{'-':>13s} {'-':>10s}  java {' '.join(f'{v:.1f}' for v in java)}  (no PyTorch figure)"
        print(line)
    print(f"gemm rounds: {len(rounds['java'].get(next(iter(rounds['java']), ''), []))} Java and "
          f"{len(rounds['torch'].get(next(iter(rounds['torch']), ''), []))} PyTorch rounds; targets met {met} of {total}")


if __name__ == "__main__":
    main()
