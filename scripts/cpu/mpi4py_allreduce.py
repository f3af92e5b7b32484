#!/usr/bin/env python3
"""Open MPI peer of `mpi2nccl bandwidth` on the CPU: Allreduce of float32 sums through mpi4py + numpy, timed as
the toolkit's harness (warm-up calls, barrier, N calls, the slowest rank's average per call, then one checked
call) and written as the same CSV columns, so `mpi2nccl bandwidth-compare` can put both side by side.

    mpirun -np 2 /usr/bin/python3 scripts/cpu/mpi4py_allreduce.py --min 1M --max 64M --factor 4 --csv out.csv
"""
import argparse
import csv
import time

import numpy as np
from mpi4py import MPI

COLUMNS = ["communicator", "collective", "ranks", "type", "redop", "root", "size_bytes", "count", "placement",
           "iters", "time_us", "algbw_GBps", "busbw_GBps", "wrong", "d2h_us", "host_collective_us", "h2d_us"]


def parse_bytes(s):
    s = s.strip().upper().replace("IB", "").replace("B", "")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(float(s[:-1] if mult != 1 else s) * mult)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--min", default="8")
    p.add_argument("--max", default="64M")
    p.add_argument("--factor", type=float, default=2)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--seconds-per-size", type=float, default=5)
    p.add_argument("--label", default="openmpi")
    p.add_argument("--csv", default="openmpi_allreduce.csv")
    a = p.parse_args()
    comm = MPI.COMM_WORLD
    rank, world = comm.Get_rank(), comm.Get_size()
    rows = []
    size = parse_bytes(a.min)
    while size <= parse_bytes(a.max):
        n = max(1, size // 4)
        i = np.arange(n)
        fresh = ((rank + 1) + (i % 7)).astype(np.float32)
        expected = (world * (world + 1) // 2 + world * (i % 7)).astype(np.float32)
        for placement in ("out-of-place", "in-place"):
            send = fresh.copy()
            recv = np.zeros(n, dtype=np.float32)

            def call():
                if placement == "in-place":
                    comm.Allreduce(MPI.IN_PLACE, send, op=MPI.SUM)
                else:
                    comm.Allreduce(send, recv, op=MPI.SUM)

            comm.Barrier()
            t0 = time.perf_counter()
            for _ in range(max(1, a.warmup)):
                call()
            est = comm.allreduce((time.perf_counter() - t0) / max(1, a.warmup), op=MPI.MAX)
            iters = int(max(3, min(a.iters, a.seconds_per_size / max(est, 1e-9))))
            comm.Barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                call()
            sec = comm.allreduce((time.perf_counter() - t0) / iters, op=MPI.MAX)
            send[:] = fresh
            recv[:] = 0
            comm.Barrier()
            call()
            got = send if placement == "in-place" else recv
            wrong = comm.allreduce(int(np.count_nonzero(got != expected)), op=MPI.SUM)
            algbw = n * 4 / sec / 1e9
            busbw = algbw * 2 * (world - 1) / world
            if rank == 0:
                rows.append([a.label, "allReduce", world, "float32", "sum", 0, n * 4, n, placement, iters,
                             sec * 1e6, algbw, busbw, wrong, "NaN", "NaN", "NaN"])
                print(f"{n * 4:12d} {placement:13s} {sec * 1e6:12.1f} us  busbw {busbw:7.3f} GB/s  wrong {wrong}",
                      flush=True)
        size = int(size * a.factor)
    if rank == 0:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            w.writerows(rows)


if __name__ == "__main__":
    main()
