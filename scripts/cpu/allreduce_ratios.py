#!/usr/bin/env python3
"""The ratio table of scripts/cpu/allreduce-vs-openmpi.sh: reads OUT/round-*/toolkit-*/bandwidth.csv and
OUT/round-*/openmpi-*.csv (2 ranks), OUT/round-*/before-*/bandwidth.csv (another build of the toolkit, when the
script ran with BEFORE=) and OUT/toolkit-4ranks-*/bandwidth.csv, and prints, per size and placement, the
median time of each side, the median over rounds of the busbw ratio toolkit / Open MPI (> 1: the toolkit is faster)
and which target the row meets:
  4 KiB:            latency within 2x of Open MPI (ratio >= 0.5);
  256 KiB .. 64 MiB: busbw at least Open MPI's (ratio >= 1.0);
  4 ranks:          every size completes with correct results, 4 KiB under 10x the 2-rank latency.

    python3 scripts/cpu/allreduce_ratios.py build/cpu-allreduce
"""
import csv
import glob
import os
import statistics
import sys


def rows(pattern):
    out = {}
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            for r in csv.DictReader(f):
                # the first band that measured a size keeps it (a later band only warms up on it)
                out.setdefault((int(r["size_bytes"]), r["placement"]), (float(r["time_us"]), int(float(r["wrong"]))))
    return out


def size_label(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def target(size, ratio):
    if size == 4096:
        return ("meets" if ratio >= 0.5 else "MISSES") + " latency <= 2x Open MPI"
    if (256 << 10) <= size <= (64 << 20):
        return ("meets" if ratio >= 1.0 else "MISSES") + " busbw >= 1.0x Open MPI"
    return "no target"


def main():
    out = sys.argv[1]
    rounds = sorted(glob.glob(os.path.join(out, "round-*")))
    tk = [rows(os.path.join(d, "toolkit-*", "bandwidth.csv")) for d in rounds]
    om = [rows(os.path.join(d, "openmpi-*.csv")) for d in rounds]
    bf = [rows(os.path.join(d, "before-*", "bandwidth.csv")) for d in rounds]
    has_before = any(bf)
    keys = sorted(set().union(*[set(t) for t in tk]), key=lambda k: (k[0], k[1] != "in-place"))
    print(f"\n2 ranks, float32 sum, {len(rounds)} rounds (medians; ratio = busbw toolkit / Open MPI per round, then the median)")
    extra = " before us | before ratio |" if has_before else ""
    print("| size | placement | toolkit us | Open MPI us | ratio | per-round ratios | target |" + extra)
    print("| --- | --- | --- | --- | --- | --- | --- |" + (" --- | --- |" if has_before else ""))
    two_rank_4k = []
    for k in keys:
        pairs = [(t[k], o[k]) for t, o in zip(tk, om) if k in t and k in o]
        if not pairs:
            continue
        ratios = [o[0] / t[0] for t, o in pairs]
        wrong = sum(t[1] + o[1] for t, o in pairs)
        med_t = statistics.median(t[0] for t, _ in pairs)
        if k[0] == 4096:
            two_rank_4k.append(med_t)
        ratio = statistics.median(ratios)
        note = target(k[0], ratio) + (f", {wrong} WRONG elements" if wrong else "")
        line = (f"| {size_label(k[0])} | {k[1]} | {med_t:.1f} | {statistics.median(o[0] for _, o in pairs):.1f} | "
                f"{ratio:.2f}x | {' '.join(f'{x:.2f}' for x in ratios)} | {note} |")
        before = [(b[k], o[k]) for b, o in zip(bf, om) if k in b and k in o]
        if has_before and before:
            line += (f" {statistics.median(b[0] for b, _ in before):.1f} | "
                     f"{statistics.median(o[0] / b[0] for b, o in before):.2f}x |")
        print(line)
    four = rows(os.path.join(out, "toolkit-4ranks-*", "bandwidth.csv"))
    if four:
        print("\n4 ranks on the same cores (toolkit only, one run)")
        print("| size | placement | time us | wrong | target |")
        print("| --- | --- | --- | --- | --- |")
        for k in sorted(four, key=lambda k: (k[0], k[1] != "in-place")):
            t, wrong = four[k]
            note = "completes" + (f", {wrong} WRONG" if wrong else "")
            if k[0] == 4096 and two_rank_4k:
                x = t / max(two_rank_4k)
                note += f"; {x:.1f}x the 2-rank latency: " + ("meets" if x < 10 else "MISSES") + " < 10x"
            print(f"| {size_label(k[0])} | {k[1]} | {t:.1f} | {wrong} | {note} |")
        expected = {k for t in tk for k in t}
        missing = sorted(expected - set(four))
        if missing:
            print(f"4 ranks MISSING sizes: {missing}")


if __name__ == "__main__":
    main()
