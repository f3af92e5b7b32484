#!/usr/bin/env python3
"""torch.distributed peer of `mpi2nccl bandwidth`: float32 collectives on the GPUs of this machine (one process per
GPU, NCCL backend), nccl-tests style, written as the same CSV columns as the toolkit's harness so that
`mpi2nccl bandwidth-compare` (and `mpi2nccl scaling-report`) can put both on one plot.

--collectives picks any of allReduce (sum), allGather, reduceScatter (sum), broadcast (root 0); default allReduce.
all_reduce and broadcast work in place ("in-place" rows); all_gather_into_tensor and reduce_scatter_tensor write a
separate output ("out-of-place" rows). Sizes as the toolkit counts them: for allGather and reduceScatter the size is
the whole gathered / scattered buffer, each rank's block is size / ranks.

Timing as the Java harness: per size, warm-up calls, then barrier + synchronize, N calls back to back,
synchronize; time per call = the slowest rank's average. Sizes from --min to --max by --factor. Each size's
result is checked (inputs (rank+1) + (i mod 7): sums are exact in float32).
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
COLLECTIVES = ["allReduce", "allGather", "reduceScatter", "broadcast"]


def parse_bytes(s):
    s = s.strip().upper().replace("IB", "").replace("B", "")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(float(s[:-1] if mult != 1 else s) * mult)


def bus_factor(collective, n):
    """nccl-tests' factor from algorithm to bus bandwidth (the toolkit's BusBandwidth)."""
    return {"allReduce": 2 * (n - 1) / n, "allGather": (n - 1) / n, "reduceScatter": (n - 1) / n, "broadcast": 1.0}[collective]


class Case:
    """One collective at one size on this rank: its buffers, the call, and the count of wrong elements after it."""

    def __init__(self, collective, rank, world, elems):
        self.collective, self.rank, self.world = collective, rank, world
        blocks = collective in ("allGather", "reduceScatter")
        self.count = elems // world if blocks else elems       # elements per call argument, as the toolkit counts
        self.size_bytes = (self.count * world if blocks else self.count) * 4
        n_in = self.count * world if collective == "reduceScatter" else self.count
        i = torch.arange(n_in, device="cuda", dtype=torch.int64)
        self.fresh = ((rank + 1) + (i % 7)).to(torch.float32)
        if collective == "broadcast" and rank != 0:
            self.fresh.zero_()
        self.buf = self.fresh.clone()
        self.out = None
        if collective == "allGather":
            self.out = torch.empty(self.count * world, device="cuda", dtype=torch.float32)
        elif collective == "reduceScatter":
            self.out = torch.empty(self.count, device="cuda", dtype=torch.float32)

    def placement(self):
        return "out-of-place" if self.out is not None else "in-place"

    def run(self):
        if self.collective == "allReduce":
            dist.all_reduce(self.buf)
        elif self.collective == "broadcast":
            dist.broadcast(self.buf, src=0)
        elif self.collective == "allGather":
            dist.all_gather_into_tensor(self.out, self.buf)
        else:
            dist.reduce_scatter_tensor(self.out, self.buf)

    def wrong(self):
        """Refills the inputs, runs once more and counts the elements that differ from the expected result."""
        self.buf.copy_(self.fresh)
        self.run()
        torch.cuda.synchronize()
        w, c = self.world, self.count
        if self.collective == "allReduce":
            i = torch.arange(c, device="cuda", dtype=torch.int64)
            got, want = self.buf, (w * (w + 1) // 2 + w * (i % 7)).to(torch.float32)
        elif self.collective == "broadcast":
            i = torch.arange(c, device="cuda", dtype=torch.int64)
            got, want = self.buf, (1 + (i % 7)).to(torch.float32)
        elif self.collective == "allGather":
            j = torch.arange(c * w, device="cuda", dtype=torch.int64)
            got, want = self.out, ((j // c + 1) + ((j % c) % 7)).to(torch.float32)
        else:
            i = self.rank * c + torch.arange(c, device="cuda", dtype=torch.int64)
            got, want = self.out, (w * (w + 1) // 2 + w * (i % 7)).to(torch.float32)
        return int((got != want).sum().item())


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
        print(f"torch.distributed init on {world} GPUs (process group + first all_reduce): {init_ms:.1f} ms; "
              f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}", flush=True)
    rows = []
    for collective in args.collectives:
        if rank == 0:
            print(f"# torch.distributed {collective} on {world} ranks", flush=True)
        size = parse_bytes(args.min)
        while size <= parse_bytes(args.max):
            case = Case(collective, rank, world, max(1, size // 4))
            if case.count < 1:              # too small to give every rank an element (as the toolkit skips it)
                size = int(size * args.factor)
                continue
            for _ in range(args.warmup):
                case.run()
            torch.cuda.synchronize()
            dist.barrier()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(args.iters):
                case.run()
            torch.cuda.synchronize()
            sec = torch.tensor([(time.perf_counter() - t0) / args.iters], device="cuda", dtype=torch.float64)
            dist.all_reduce(sec, op=dist.ReduceOp.MAX)
            sec = sec.item()
            wrong = torch.tensor([case.wrong()], device="cuda", dtype=torch.int64)
            dist.all_reduce(wrong)
            algbw = case.size_bytes / sec / 1e9
            busbw = algbw * bus_factor(collective, world)
            if rank == 0:
                rows.append(["torch.distributed", collective, world, "float32", "sum", 0, case.size_bytes, case.count,
                             case.placement(), args.iters, sec * 1e6, algbw, busbw, int(wrong.item()), "NaN", "NaN", "NaN"])
                print(f"{case.size_bytes:12d} {sec * 1e6:10.1f} us  algbw {algbw:8.2f}  busbw {busbw:8.2f} GB/s  "
                      f"wrong {int(wrong.item())}", flush=True)
            del case
            size = int(size * args.factor)
    if rank == 0:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            w.writerows(rows)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--min", default="8")
    p.add_argument("--max", default="1G")
    p.add_argument("--factor", type=float, default=2)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--ranks", type=int, default=0, help="GPUs (default 0: all the GPUs of this machine)")
    p.add_argument("--collectives", default="allReduce", help="comma-separated: " + ",".join(COLLECTIVES))
    p.add_argument("--csv", default="torch_allreduce.csv")
    args = p.parse_args()
    args.collectives = [c.strip() for c in args.collectives.split(",") if c.strip()]
    for c in args.collectives:
        if c not in COLLECTIVES:
            p.error(f"unknown collective '{c}': use {', '.join(COLLECTIVES)}")
    for k in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
        assert k in os.environ, f"{k} must be set (NVLink multicast stays off on the shared machine)"
    gpus = torch.cuda.device_count()
    ranks = args.ranks or gpus
    if ranks < 1 or ranks > gpus:
        p.error(f"--ranks {ranks}: this machine has {gpus} GPU(s); give 1..{gpus}")
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(ranks, args, port), nprocs=ranks, join=True)


if __name__ == "__main__":
    main()
