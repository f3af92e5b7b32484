#!/usr/bin/env python3
"""The data-parallel experiment's targets, read off the speedup reports of data-parallel.sh and multi-gpu.sh, at
every GPU count n > 1 the report holds: NCCL speedup >= 0.95 n (1.9x on 2 GPUs, 3.8x on 4, 7.6x on 8: weak scaling
at 95% efficiency) and >= PyTorch DDP's at the same count in the same run (every DDP variant the report holds: "ddp", its
loader as ours is built; "ddp-pinned", PyTorch's recommended DataLoader; "ddp-resident", the set on the GPU); the
n-rank test accuracy within 0.5 points of the 1-rank run; the MPI host route's speedup beside them. With rounds (--rounds N),
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


def ddp_routes(rs, n):
    return [(route, get(rs, route, n)) for route in ("ddp", "ddp-pinned", "ddp-resident") if get(rs, route, n)]


def main():
    ok = True
    for path in sys.argv[1:]:
        rs = rows(path)
        print(f"== {path}")
        counts = sorted({int(r["ranks"]) for r in rs if int(r["ranks"]) > 1})
        if not counts:
            print("   no run on 2 or more GPUs in this file")
            ok = False
            continue
        for n in counts:
            nccl, mpi, ddps = get(rs, "nccl", n), get(rs, "mpi", n), ddp_routes(rs, n)
            named = [(f"nccl x{n}", nccl), (f"mpi x{n} (host route)", mpi)] + [(f"{route} x{n} (PyTorch)", r) for route, r in ddps]
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
                print(f"   no {n}-GPU NCCL run in this file")
                ok = False
                continue
            # weak scaling: 95% efficiency (1.9x on 2 GPUs, 3.8x on 4, 7.6x on 8)
            want = 0.95 * n
            s, sp = paired(nccl), float(nccl["speedup"])
            t1 = s >= want
            print(f"   target: NCCL {n}-GPU speedup >= {want:.1f}x: {s:.3f}x -> {verdict(t1)}   (pooled {sp:.3f}x -> {verdict(sp >= want)})")
            ok &= t1
            for route, ddp in ddps:
                d, dp = paired(ddp), float(ddp["speedup"])
                t2 = s >= d
                print(f"   target: NCCL {n}-GPU speedup >= PyTorch {route}'s ({d:.3f}x): {verdict(t2)}"
                      f"   (pooled {sp:.3f}x vs {dp:.3f}x -> {verdict(sp >= dp)})")
                ok &= t2
            a = float(nccl["acc_vs_1rank_points"])
            t3 = abs(a) <= 0.5
            print(f"   target: {n}-rank test accuracy within 0.5 points of 1 rank: {a:+.2f} -> {verdict(t3)}")
            ok &= t3
            if mpi:
                print(f"   contrast: the MPI host route reaches {float(mpi['speedup']):.2f}x on {n} GPUs "
                      f"(communication not hidden: {float(mpi['comm_s']):.2f} s of {float(mpi['epoch_s']):.2f} s per epoch)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
