#!/usr/bin/env python3
"""Does an NCCL communicator slow down the compute kernels of its process? PyTorch's whole training step of the
lesson CNN (torch_peer.py's model), recorded once as a CUDA graph and replayed back to back with nothing else
queued, timed in the same process three times: before any communicator, after an NCCL process group of WORLD ranks
was made and connected by one all-reduce, or as many as --collectives asks (no communication while timing), and
after it was destroyed. WORLD=1 is the control (a communicator without peers). The toolkit's own figure is the
`forward graph replayed alone` of each speedup rank; this asks the same of PyTorch with the same NCCL.

Usage on the GPU machine (NVLink multicast off, as every script here):
    NCCL_NVLS_ENABLE=0 python3 scripts/gpu/nccl_beside.py --world 2 [--replays 300 --rounds 3 --batch 128]
        [--collectives 5000 --floats 545194]   (all-reduces of that many floats before the timing with NCCL)
Prints one line per rank and phase, and a JSON summary (--json FILE)."""
import argparse
import json
import os
import statistics
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_peer import captured_step, cnn  # noqa: E402  the lesson CNN, as the toolkit builds it, and its capture


def graphed_step(batch):
    """The lesson CNN's whole step (SGD with momentum) on a random batch, as one CUDA graph (torch_peer's capture)."""
    torch.manual_seed(0)
    model = cnn(32, 64).cuda().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = torch.rand(batch, 1, 28, 28, device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    return captured_step(model, opt, torch.nn.CrossEntropyLoss(), x, y)


def replay_us(graph, replays, rounds):
    """Median over rounds of the microseconds per replay, replays back to back between two events."""
    times = []
    for _ in range(rounds):
        graph.replay()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(replays):
            graph.replay()
        end.record()
        end.synchronize()
        times.append(1000.0 * start.elapsed_time(end) / replays)
    return statistics.median(times), min(times), max(times)


def rank_main(rank, world, args, out):
    torch.cuda.set_device(rank)
    graph = graphed_step(args.batch)
    rows = {"before": replay_us(graph, args.replays, args.rounds)}
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(args.port))
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    t = torch.ones(1024, device="cuda")
    dist.all_reduce(t)                  # connects the ranks (NCCL connects lazily, at the first collective)
    grads = torch.ones(args.floats, device="cuda")
    for _ in range(args.collectives - 1):   # as many all-reduces as a training run makes, if asked
        dist.all_reduce(grads)
    torch.cuda.synchronize()
    dist.barrier()
    rows["with NCCL"] = replay_us(graph, args.replays, args.rounds)
    dist.barrier()
    dist.destroy_process_group()
    rows["after NCCL"] = replay_us(graph, args.replays, args.rounds)
    for phase, (med, lo, hi) in rows.items():
        print(f"world {world} rank {rank} {phase:10s}: {med:7.1f} us per step ({args.rounds} rounds {lo:.1f}-{hi:.1f})", flush=True)
    out[rank] = {k: v[0] for k, v in rows.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--replays", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--port", type=int, default=29533)
    ap.add_argument("--collectives", type=int, default=1, help="all-reduces before timing 'with NCCL' (the first of 1024 floats)")
    ap.add_argument("--floats", type=int, default=545194, help="floats in each further all-reduce (the CIFAR-shaped CNN's gradients)")
    ap.add_argument("--json")
    args = ap.parse_args()
    if torch.cuda.device_count() < args.world:
        raise SystemExit(f"--world {args.world} needs that many GPUs; this machine has {torch.cuda.device_count()}")
    manager = mp.Manager()             # kept: the dict lives in the manager's process
    out = manager.dict()
    mp.spawn(rank_main, args=(args.world, args, out), nprocs=args.world, join=True)
    summary = {"world": args.world, "batch": args.batch, "collectives": args.collectives, "torch": torch.__version__,
               "nccl": ".".join(map(str, torch.cuda.nccl.version())), "ranks": dict(out)}
    print(json.dumps(summary))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
