#!/usr/bin/env python3
"""The data-parallel experiment's targets, read off the speedup reports of data-parallel.sh:
2-GPU NCCL speedup >= 1.9x and >= PyTorch DDP's in the same run (every DDP variant the report holds: "ddp", its
loader as ours is built; "ddp-pinned", PyTorch's recommended DataLoader; "ddp-resident", the set on the GPU); the
2-rank test accuracy within 0.5 points of the 1-rank run; the MPI host route's speedup beside them. With rounds (--rounds N),
each line gives the pooled speedup (median epochs over all rounds), the range of a single round and the median of
the rounds' speedups (speedup_paired: each round against its own 1-rank run). The targets are judged on the paired
median (the rounds alternate 1 and 2 GPUs so that drift between rounds cancels, and only the paired
figure keeps that; the pooled one can pair a slow round's 1-GPU epochs with a fast round's 2-GPU epochs and then
exceeds every round's ratio); the verdict on the pooled figures is printed beside it. Summaries without
speedup_paired (one round, or written before it existed) are judged on the pooled speedup.

    python3 dist_targets.py OUT/fashion-vs-ddp/summary.csv [more summary.csv ...]
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def get(rs, route, ranks):
    for r in rs:
        if r["route"] == route and int(r["ranks"]) == ranks:
            return r
    return None


def paired(r):
    """The median of the rounds' speedups, or the pooled speedup where the summary has none."""
    v = r.get("speedup_paired")
    try:
        x = float(v)
        return x if x == x else float(r["speedup"])     # NaN: no round paired
    except (TypeError, ValueError):
        return float(r["speedup"])


def verdict(ok):
    return "MET" if ok else "NOT MET"


def main():
    ok = True
    for path in sys.argv[1:]:
        rs = rows(path)
        print(f"== {path}")
        nccl, mpi = get(rs, "nccl", 2), get(rs, "mpi", 2)
        ddps = [(route, get(rs, route, 2)) for route in ("ddp", "ddp-pinned", "ddp-resident") if get(rs, route, 2)]
        named = [("nccl x2", nccl), ("mpi x2 (host route)", mpi)] + [(f"{route} x2 (PyTorch)", r) for route, r in ddps]
        for name, r in named:
            if r:
                spread = ""
                if r.get("speedup_lo") and r["speedup_lo"] != r.get("speedup_hi"):
                    spread = (f" (one round: {float(r['speedup_lo']):.3f}-{float(r['speedup_hi']):.3f},"
                              f" their median {paired(r):.3f})")
                print(f"   {name:24s} speedup {float(r['speedup']):6.3f}x{spread}  efficiency {100 * float(r['efficiency']):5.1f}%"
                      f"  epoch {float(r['epoch_s']):7.3f} s  test acc {100 * float(r['test_acc']):6.2f}%"
                      f"  vs its 1-rank run {float(r['acc_vs_1rank_points']):+5.2f} points")
        if nccl is None:
            print("   no 2-GPU NCCL run in this file")
            ok = False
            continue
        s, sp = paired(nccl), float(nccl["speedup"])
        t1 = s >= 1.9
        print(f"   target: NCCL 2-GPU speedup >= 1.9x: {s:.3f}x -> {verdict(t1)}   (pooled {sp:.3f}x -> {verdict(sp >= 1.9)})")
        ok &= t1
        for route, ddp in ddps:
            d, dp = paired(ddp), float(ddp["speedup"])
            t2 = s >= d
            print(f"   target: NCCL speedup >= PyTorch {route}'s ({d:.3f}x): {verdict(t2)}"
                  f"   (pooled {sp:.3f}x vs {dp:.3f}x -> {verdict(sp >= dp)})")
            ok &= t2
        a = float(nccl["acc_vs_1rank_points"])
        t3 = abs(a) <= 0.5
        print(f"   target: 2-rank test accuracy within 0.5 points of 1 rank: {a:+.2f} -> {'MET' if t3 else 'NOT MET'}")
        ok &= t3
        if mpi:
            print(f"   contrast: the MPI host route reaches {float(mpi['speedup']):.2f}x "
                  f"(communication not hidden: {float(mpi['comm_s']):.2f} s of {float(mpi['epoch_s']):.2f} s per epoch)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
