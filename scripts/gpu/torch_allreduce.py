#!/usr/bin/env python3
"""torch.distributed peer of `mpi2nccl bandwidth`: all_reduce of float32 sums on 2 GPUs (one process per GPU,
NCCL backend), nccl-tests style, written as the same CSV columns as the toolkit's harness so that
`mpi2nccl bandwidth-compare` can put both on one plot. all_reduce works in place, so rows are "in-place".

Timing as the Java harness: per size, warm-up calls, then barrier + synchronize, N calls back to back,
synchronize; time per call = the slowest rank's average. Sizes from --min to --max by --factor. Each size's
result is checked (inputs (rank+1) + (i mod 7): the sum is exact in float32).
"""
import argparse
import csv
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

COLUMNS = ["communicator", "collective", "ranks", "type", "redop", "root", "size_bytes", "count", "placement",
           "iters", "time_us", "algbw_GBps", "busbw_GBps", "wrong", "d2h_us", "host_collective_us", "h2d_us"]


def parse_bytes(s):
    s = s.strip().upper().replace("IB", "").replace("B", "")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(float(s[:-1] if mult != 1 else s) * mult)


def worker(rank, world, args, port):
    torch.cuda.set_device(rank)
    t0 = time.perf_counter()
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", world_size=world, rank=rank,
                            device_id=torch.device("cuda", rank))
    x = torch.ones(1, device="cuda")
    dist.all_reduce(x)                      # NCCL's communicator is made lazily: count it in the init time
    torch.cuda.synchronize()
    init_ms = (time.perf_counter() - t0) * 1e3
    if rank == 0:
        print(f"torch.distributed init (process group + first all_reduce): {init_ms:.1f} ms; "
              f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}", flush=True)
    rows = []
    size = parse_bytes(args.min)
    while size <= parse_bytes(args.max):
        n = max(1, size // 4)
        i = torch.arange(n, device="cuda", dtype=torch.int64)
        fresh = ((rank + 1) + (i % 7)).to(torch.float32)
        buf = fresh.clone()
        for _ in range(args.warmup):
            dist.all_reduce(buf)
        torch.cuda.synchronize()
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.iters):
            dist.all_reduce(buf)
        torch.cuda.synchronize()
        sec = torch.tensor([(time.perf_counter() - t0) / args.iters], device="cuda", dtype=torch.float64)
        dist.all_reduce(sec, op=dist.ReduceOp.MAX)
        sec = sec.item()
        buf.copy_(fresh)
        dist.all_reduce(buf)
        expected = (world * (world + 1) // 2 + world * (i % 7)).to(torch.float32)
        wrong = torch.tensor([(buf != expected).sum().item()], device="cuda", dtype=torch.int64)
        dist.all_reduce(wrong)
        algbw = n * 4 / sec / 1e9
        busbw = algbw * 2 * (world - 1) / world
        if rank == 0:
            rows.append(["torch.distributed", "allReduce", world, "float32", "sum", 0, n * 4, n, "in-place",
                         args.iters, sec * 1e6, algbw, busbw, int(wrong.item()), "NaN", "NaN", "NaN"])
            print(f"{n * 4:12d} {sec * 1e6:10.1f} us  algbw {algbw:8.2f}  busbw {busbw:8.2f} GB/s  wrong {int(wrong.item())}",
                  flush=True)
        size = int(size * args.factor)
    if rank == 0:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            w.writerows(rows)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--min", default="8")
    p.add_argument("--max", default="1G")
    p.add_argument("--factor", type=float, default=2)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--csv", default="torch_allreduce.csv")
    args = p.parse_args()
    for k in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
        assert k in os.environ, f"{k} must be set (NVLink multicast stays off on the shared machine)"
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(args.ranks, args, port), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
