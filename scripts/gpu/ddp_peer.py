#!/usr/bin/env python3
"""PyTorch DistributedDataParallel on the speedup experiment's model, data and batch: the peer of
`mpi2nccl run` (the toolkit's data-parallel training over NCCL). Same lesson CNN (conv-BN-ReLU-pool twice,
128 hidden, 10 out), same Fashion-MNIST files (pixels / 255) or a CIFAR-shaped random set of the same sizes,
same fixed batch per GPU, SGD momentum 0.9 with the learning rate scaled linearly with the ranks (reached over
the first epoch, as the toolkit does), the same
warm-up steps run and undone, the same loader design (index the in-memory set per batch, copy the batch to
the GPU). One process per GPU (torch.multiprocessing), NCCL over localhost TCP.

--loader pinned (route "ddp-pinned") feeds the batches the way PyTorch's tutorials recommend instead: a DataLoader
with worker processes gathering whole batches, pinned memory and non-blocking copies, so that the host prepares the
next batches while the GPU trains (the toolkit's loader gathers on a background thread into pinned memory too).

--loader resident (route "ddp-resident") keeps the whole training set on the GPU and gathers each batch there by
index (no host work per batch: what an in-memory set allows, and how the 1.13x DDP figure of ../shared/gpu-machine.md
was measured, on data already on the GPU).

--rounds N runs every rank count N times in turn (1 GPU, 2 GPUs, then again), as `mpi2nccl run --rounds N` does:
a machine that drifts between runs then weighs on both alike. Each row says its round; --first-round K numbers them
from K (a script that alternates one round of ours with one round of this peer pairs them by number).
--ranks defaults to 1, 2, 4, ... and all the GPUs of the machine, as `mpi2nccl run` does.

Writes rows in the toolkit's per-epoch CSV columns (route "ddp"), so that
`mpi2nccl run --from-csv ours/epochs.csv,ddp.csv` draws both on one chart.

    python3 ddp_peer.py --data fashion --data-dir DIR --ranks 1,2,4 --epochs 5 --out ddp.csv
"""
import argparse
import csv
import gzip
import math
import os
import socket
import struct
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

for k, v in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ.setdefault(k, v)

COLUMNS = ["route", "ranks", "device", "epoch", "round", "epoch_s", "samples_per_s", "samples", "steps", "train_loss", "train_acc",
           "test_loss", "test_acc", "eval_s", "batch_per_rank", "global_batch", "lr"]


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    dims = struct.unpack(">" + "I" * (magic & 0xFF), data[4:4 + 4 * (magic & 0xFF)])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * len(dims)).reshape(dims)


def find(folder, name):
    for n in (name + ".gz", name):
        if os.path.exists(os.path.join(folder, n)):
            return os.path.join(folder, n)
    raise FileNotFoundError(f"{name}[.gz] not in {folder}")


def load(args):
    if args.data == "fashion":
        d = args.data_dir
        xtr = read_idx(find(d, "train-images-idx3-ubyte")).astype(np.float32)[:, None] / 255.0
        ytr = read_idx(find(d, "train-labels-idx1-ubyte")).astype(np.int64)
        xte = read_idx(find(d, "t10k-images-idx3-ubyte")).astype(np.float32)[:, None] / 255.0
        yte = read_idx(find(d, "t10k-labels-idx1-ubyte")).astype(np.int64)
        if args.train_examples:
            xtr, ytr = xtr[:args.train_examples], ytr[:args.train_examples]
        if args.test_examples:
            xte, yte = xte[:args.test_examples], yte[:args.test_examples]
    else:
        # CIFAR-shaped: the toolkit's synthetic set is a seeded teacher problem; here random data of the same
        # shape and size (the timing is the point; accuracy on it is not compared)
        g = np.random.default_rng(7)
        n, m = args.train_examples or 50000, args.test_examples or 10000
        w = g.standard_normal((10, 3 * 32 * 32)).astype(np.float32)
        x = g.standard_normal((n + m, 3, 32, 32)).astype(np.float32)
        y = (x.reshape(n + m, -1) @ w.T).argmax(1).astype(np.int64)
        xtr, ytr, xte, yte = x[:n], y[:n], x[n:], y[n:]
    return torch.from_numpy(np.ascontiguousarray(xtr)), torch.from_numpy(ytr), torch.from_numpy(np.ascontiguousarray(xte)), torch.from_numpy(yte)


def cnn(channels, size, c1, c2):
    return nn.Sequential(
        nn.Conv2d(channels, c1, 3, 1, 1, bias=False), nn.BatchNorm2d(c1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, 1, 1, bias=False), nn.BatchNorm2d(c2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(c2 * (size // 4) ** 2, 128), nn.ReLU(), nn.Linear(128, 10))


def shard(n, rank, ranks, seed, epoch, shuffle=True, pad=True):
    """torch's DistributedSampler rule (the toolkit's too): permute, pad to a multiple of ranks, stride by rank."""
    if shuffle:
        g = torch.Generator()
        g.manual_seed(seed + epoch)
        order = torch.randperm(n, generator=g)
    else:
        order = torch.arange(n)
    if pad:
        total = -(-n // ranks) * ranks
        order = torch.cat([order, order[:total - n]])
    return order[rank::ranks]


class EpochBatches:
    """This rank's shard of an epoch in batches of indices, for a DataLoader's sampler (a new order each epoch,
    as DistributedSampler.set_epoch gives; the workers stay alive between epochs)."""

    def __init__(self, n, rank, ranks, seed, size):
        self.n, self.rank, self.ranks, self.seed, self.size, self.epoch = n, rank, ranks, seed, size, 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        idx = shard(self.n, self.rank, self.ranks, self.seed, self.epoch).tolist()
        return iter([idx[i:i + self.size] for i in range(0, len(idx), self.size)])

    def __len__(self):
        return math.ceil(math.ceil(self.n / self.ranks) / self.size)


def pinned_loader(x, y, sampler, workers):
    """PyTorch's recommended input pipeline: worker processes gather whole batches (one fancy index each), the
    loader pins them and keeps two per worker ready."""
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), sampler=sampler, batch_size=None,
                                       num_workers=workers, pin_memory=True, persistent_workers=workers > 0,
                                       prefetch_factor=2 if workers > 0 else None)


def worker(rank, ranks, args, port, queue):
    # A few CPU threads per process, the same for 1 and 2 GPUs: torch's default (one per core in every process)
    # oversubscribes the host when two processes gather batches at once.
    torch.set_num_threads(args.threads)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=ranks,
                            device_id=torch.device("cuda", rank))
    dev = torch.device("cuda", rank)
    xtr, ytr, xte, yte = load(args)
    channels, size = (1, 28) if args.data == "fashion" else (3, 32)
    torch.manual_seed(args.seed)
    model = nn.parallel.DistributedDataParallel(cnn(channels, size, args.c1, args.c2).to(dev), device_ids=[rank])
    lr = args.lr * ranks
    state = {k: v.clone() for k, v in model.state_dict().items()}
    b = args.batch_per_rank

    def batches(x, y, idx, size):
        for i in range(0, len(idx), size):
            j = idx[i:i + size]
            yield x[j].to(dev), y[j].to(dev)

    pinned = None
    if args.loader == "resident":
        xtr_dev, ytr_dev = xtr.to(dev), ytr.to(dev)
    if args.loader == "pinned":
        sampler = EpochBatches(len(xtr), rank, ranks, args.seed, b)
        pinned = (sampler, pinned_loader(xtr, ytr, sampler, args.workers))

    def training_batches(epoch):
        if args.loader == "resident":
            idx = shard(len(xtr), rank, ranks, args.seed, epoch).to(dev)
            for i in range(0, len(idx), b):
                j = idx[i:i + b]
                yield xtr_dev[j], ytr_dev[j]
            return
        if pinned is None:
            yield from batches(xtr, ytr, shard(len(xtr), rank, ranks, args.seed, epoch), b)
            return
        pinned[0].set_epoch(epoch)
        for x, y in pinned[1]:
            yield x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)

    # warm-up, then undone (as the toolkit does)
    # as many passes over the shard as the steps need (a 2-rank shard has fewer batches than 1000 steps)
    scratch = torch.optim.SGD(model.parameters(), lr=1e-6, momentum=0.9)
    done = 0
    for warm_pass in range(10**6, 10**6 + args.warmup_steps + 1):
        if done >= args.warmup_steps:
            break
        for x, y in training_batches(warm_pass):
            if done >= args.warmup_steps:
                break       # (a persistent-worker loader drops what it had prefetched when the next epoch starts)
            scratch.zero_grad(set_to_none=True)
            F.cross_entropy(model(x), y).backward()
            scratch.step()
            done += 1
    model.load_state_dict(state)
    steps_per_epoch = math.ceil(math.ceil(len(xtr) / ranks) / b)
    warm = args.lr_warmup_epochs * steps_per_epoch

    def lr_at(step):
        """The toolkit's schedule: the scaled rate reached linearly from one rank's over the first epoch(s)."""
        return lr if lr <= args.lr or step >= warm else args.lr + (lr - args.lr) * step / warm

    opt = torch.optim.SGD(model.parameters(), lr=lr_at(0), momentum=0.9)
    step = 0
    name = torch.cuda.get_device_name(rank)
    for epoch in range(1, args.epochs + 1):
        model.train()
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        loss_sum = torch.zeros((), device=dev)
        correct = torch.zeros((), device=dev)
        seen = 0
        steps = 0
        for x, y in training_batches(epoch):
            opt.zero_grad(set_to_none=True)
            out = model(x)
            loss = F.cross_entropy(out, y)
            loss.backward()
            opt.step()
            step += 1
            for g in opt.param_groups:
                g["lr"] = lr_at(step)
            loss_sum += loss.detach() * len(y)
            correct += (out.argmax(1) == y).sum()
            seen += len(y)
            steps += 1
        sums = torch.stack([loss_sum, correct, torch.tensor(float(seen), device=dev)])
        dist.all_reduce(sums)
        torch.cuda.synchronize()
        epoch_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        model.eval()
        te = torch.zeros(3, device=dev)
        with torch.no_grad():
            idx = shard(len(xte), rank, ranks, 0, 0, shuffle=False, pad=False)
            for x, y in batches(xte, yte, idx, 500):
                out = model(x)
                te += torch.stack([F.cross_entropy(out, y, reduction="sum"), (out.argmax(1) == y).sum().float(),
                                   torch.tensor(float(len(y)), device=dev)])
        dist.all_reduce(te)
        eval_s = time.perf_counter() - t1
        s, t = sums.tolist(), te.tolist()
        if rank == 0:
            queue.put({"route": args.route, "ranks": ranks, "device": name, "epoch": epoch, "round": args.round, "epoch_s": epoch_s,
                       "samples_per_s": s[2] / epoch_s, "samples": int(s[2]), "steps": steps, "train_loss": s[0] / s[2],
                       "train_acc": s[1] / s[2], "test_loss": t[0] / t[2], "test_acc": t[1] / t[2], "eval_s": eval_s,
                       "batch_per_rank": b, "global_batch": b * ranks, "lr": lr_at(step)})
            print(f"{args.route} x{ranks} round {args.round} epoch {epoch}: {epoch_s:.2f} s, {s[2] / epoch_s:.0f} samples/s, "
                  f"test acc {100 * t[1] / t[2]:.2f}%", flush=True)
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gpu_counts(gpus):
    """1, 2, 4, ... and all the GPUs (as the toolkit's experiment chooses them)."""
    counts, n = [], 1
    while n <= max(1, gpus):
        counts.append(n)
        n *= 2
    if gpus > 1 and gpus not in counts:
        counts.append(gpus)
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default="fashion", choices=["fashion", "synthetic-cifar"])
    p.add_argument("--data-dir", default=os.environ.get("MPI2NCCL_FASHION_MNIST", "/usr/share/datasets/fashion-mnist"))
    p.add_argument("--train-examples", type=int, default=0)
    p.add_argument("--test-examples", type=int, default=0)
    p.add_argument("--ranks", default="auto", help="GPU counts, e.g. 1,2,4 (default auto: 1, 2, 4, ... and all the GPUs)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-per-rank", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--lr-warmup-epochs", type=float, default=1.0)
    p.add_argument("--channels", default="32,64")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--warmup-steps", type=int, default=10)
    p.add_argument("--threads", type=int, default=2, help="CPU threads per process (torch.set_num_threads)")
    p.add_argument("--loader", default="index", choices=["index", "pinned", "resident"],
                   help="index: gather each batch in the training loop, blocking copy (route ddp); pinned: a DataLoader "
                        "with workers, pinned memory, non-blocking copies (route ddp-pinned); resident: the training set "
                        "on the GPU, batches gathered there (route ddp-resident)")
    p.add_argument("--workers", type=int, default=2, help="--loader pinned: DataLoader worker processes per GPU")
    p.add_argument("--rounds", type=int, default=1, help="run every rank count this many times, in turn")
    p.add_argument("--first-round", type=int, default=1, help="the number of the first round (default 1)")
    p.add_argument("--out", default="ddp.csv")
    args = p.parse_args()
    args.c1, args.c2 = (int(c) for c in args.channels.split(","))
    if args.rounds < 1:
        p.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.first_round < 1:
        p.error(f"--first-round must be at least 1, got {args.first_round}")
    args.route = "ddp" if args.loader == "index" else "ddp-" + args.loader
    gpus = torch.cuda.device_count()
    counts = gpu_counts(gpus) if args.ranks == "auto" else [int(r) for r in args.ranks.split(",")]
    rows = []
    ctx = mp.get_context("spawn")
    for rnd in range(args.first_round, args.first_round + args.rounds):
        args.round = rnd
        for ranks in counts:
            if ranks > gpus:
                print(f"{args.route} x{ranks}: skipped, only {gpus} GPU(s)", file=sys.stderr)
                continue
            queue = ctx.Queue()
            procs = mp.start_processes(worker, args=(ranks, args, free_port(), queue), nprocs=ranks, join=False,
                                       start_method="spawn")
            mine = lambda: [r for r in rows if r["ranks"] == ranks and r["round"] == rnd]
            while len(mine()) < args.epochs:
                try:
                    rows.append(queue.get(timeout=5))
                except Exception:  # queue.Empty: check that the workers are still alive
                    if all(not p.is_alive() for p in procs.processes):
                        break
            while not procs.join():
                pass
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in sorted(rows, key=lambda r: (r["round"], r["ranks"], r["epoch"])):
            w.writerow(r)
    print(f"wrote {len(rows)} rows to {args.out}")


if __name__ == "__main__":
    main()
