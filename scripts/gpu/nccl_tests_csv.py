#!/usr/bin/env python3
"""NVIDIA nccl-tests' text table (e.g. all_reduce_perf's output) as the CSV columns of the toolkit's bandwidth
harness, one row per size and placement, so that `mpi2nccl bandwidth-compare` sets it beside the harness's own CSV.
Usage: nccl_tests_csv.py PERF_OUTPUT.txt COLLECTIVE RANKS ITERS > nccl-tests.csv   (COLLECTIVE: allReduce, ...)"""
import csv
import sys

COLUMNS = ["communicator", "collective", "ranks", "type", "redop", "root", "size_bytes", "count", "placement",
           "iters", "time_us", "algbw_GBps", "busbw_GBps", "wrong", "d2h_us", "host_collective_us", "h2d_us"]
TYPES = {"float": "float32", "double": "float64", "half": "float16", "int32": "int32", "int64": "int64"}


def rows(lines, collective, ranks, iters):
    for line in lines:
        t = line.split()
        # size count type redop root | time algbw busbw #wrong (out of place) | the same in place
        if len(t) < 13 or not t[0].isdigit():
            continue
        size, count, dtype, redop, root = int(t[0]), int(t[1]), t[2], t[3], t[4]
        for placement, (time_us, algbw, busbw, wrong) in (("out-of-place", t[5:9]), ("in-place", t[9:13])):
            yield ["nccl-tests", collective, ranks, TYPES.get(dtype, dtype), redop, 0 if root == "-1" else root, size,
                   count, placement, iters, time_us, algbw, busbw, wrong if wrong.isdigit() else "NaN",
                   "NaN", "NaN", "NaN"]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, collective, ranks, iters = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(path) as f:
        out = list(rows(f, collective, ranks, iters))
    if not out:
        sys.exit(f"{path}: no rows of nccl-tests' table (did the test run? its first lines say why not)")
    w = csv.writer(sys.stdout)
    w.writerow(COLUMNS)
    w.writerows(out)


if __name__ == "__main__":
    main()
