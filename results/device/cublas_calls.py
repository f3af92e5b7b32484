#!/usr/bin/env python3
"""What each side handed cuBLAS, from cuBLAS's own API logs (CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG=FILE) and, when
given, cuBLASLt's trace (CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE=FILE: which kernel the GEMM ran). cuda5-check.sh logs
one torch.mm per TF32 setting and the toolkit's bench-gpu --only gemm-calls, and prints this side by side:
  per side: the cuBLAS functions called (with counts), and for each GEMM, math-mode or workspace call its arguments
  (m n k, compute type, algo, math mode, workspace bytes) in call order; then the cuBLASLt matmul lines (the kernel).
Usage: cublas_calls.py NAME=cublas.log[,cublaslt.log] ...
"""
import collections
import re
import sys

KEEP = re.compile(r"gemm|Gemm|MathMode|Workspace|LtMatmul\b", re.I)
FIELDS = ("transa", "transb", "m", "n", "k", "computeType", "algo", "mode", "workspaceSizeInBytes", "Atype", "Ctype")


def blocks(path):
    """(function name, {param: value}, context line) per logged call."""
    name, params, ctx = None, {}, ""
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError as e:
        print(f"    {path}: unreadable ({e})")
        return
    for line in lines:
        m = re.search(r"function\s+\S+\s+\**(\w+)\(", line)
        if line.startswith("I!") and m:
            if name:
                yield name, params, ctx
            name, params, ctx = m.group(1), {}, ""
            continue
        p = re.match(r"i!\s+(\w+):\s*type=[^;]*;\s*val=(.*)$", line)
        if p and name:
            params[p.group(1)] = p.group(2).strip()[:60]
        elif "MathMode" in line or "Handle=" in line:
            ctx = line.strip()
    if name:
        yield name, params, ctx


def main():
    for arg in sys.argv[1:]:
        side, _, files = arg.partition("=")
        logs = files.split(",")
        print(f"{side}:")
        calls = list(blocks(logs[0]))
        counts = collections.Counter(n for n, _, _ in calls)
        print("    cuBLAS functions: " + (", ".join(f"{n} x{c}" for n, c in counts.most_common()) or "none logged"))
        shown = 0
        for n, params, ctx in calls:
            if not KEEP.search(n) or shown >= 12:
                continue
            shown += 1
            args = " ".join(f"{f}={params[f]}" for f in FIELDS if f in params)
            mm = re.search(r"MathMode=\S+", ctx)
            print(f"    {n}: {args}{' ' + mm.group(0) if mm else ''}")
        for lt in logs[1:]:
            try:
                lines = [l.strip() for l in open(lt, errors="replace") if "Matmul" in l and ("algo" in l.lower() or "tile" in l.lower())]
            except OSError as e:
                print(f"    {lt}: unreadable ({e})")
                continue
            print(f"    cuBLASLt matmul lines: {len(lines)}")
            seen = set()
            for l in lines:
                # the GEMM's shape and the kernel cuBLASLt chose: compute type, algo id, tile, stages, cluster
                key = " ".join(re.findall(r"(?:computeType|algoId|tile|stages|ctaSwizzling|clusterShape|numSplitsK|"
                                          r"reductionScheme|workSpaceSizeInBytes)=[^\s\]]+", l)) or l[:300]
                if key not in seen and len(seen) < 4:
                    seen.add(key)
                    print("      " + key)


if __name__ == "__main__":
    main()
