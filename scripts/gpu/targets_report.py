#!/usr/bin/env python3
"""The GPU targets table of scripts/gpu/targets.sh, read off the files its parts wrote (standard library only: the GPU
machine's system Python may have nothing else). Every figure stands beside its anchor from the same run:
  dp    the CIFAR-shaped set, 3 epochs: the toolkit's 2- and 4-GPU speedup (NCCL) beside PyTorch DDP's, from the
        merged report of multi-gpu.sh (dp/dp/cifar-vs-ddp/summary.csv), judged on the median of the paired rounds
  step  the one-GPU training step per batch (train-sweep.sh's round-N/toolkit.json and torch.json): the toolkit's
        graphed step against PyTorch's fastest mode in the same round, then the median over the rounds
  bw    all-reduce busbw on 2 GPUs, in place: the toolkit's harness over nccl-tests' (nccl-tests.sh) or, where
        nccl-tests could not run, torch.distributed's (multi-gpu.sh PARTS=bw), per size and round, then the median

    python3 targets_report.py RUN [RUN ...] [--out targets.md]

Several RUNs (the unpacked gpu-targets.tgz of calls that ran different PARTS) make one table: each row is read from
the first RUN that has it.
"""
import csv
import glob
import json
import os
import re
import statistics
import sys

DP_TARGET = {2: 1.90, 4: 3.80}    # weak scaling at 95% efficiency
STEP_MS_TARGET, STEP_BATCH, STEP_RATIO_TARGET = 6.7, 8192, 1.3
BW_RATIO_TARGET, BW_FROM = 1.00, 1 << 20
TORCH_SUFFIX = {"": "eager", " cudnn.benchmark": "cudnn.benchmark", " cuda graph": "CUDA graph",
                " channels-last cudnn.benchmark cuda graph": "channels-last + cudnn.benchmark + CUDA graph",
                " torch.compile": "torch.compile"}
TOOLKIT_SUFFIX = {"": "eager", " graphed": "graphed"}
NAME = re.compile(r"cnn train step batch (\d+) \((\d+),(\d+)\)(.*)")


def machine(run):
    """machine.txt's key=value lines."""
    out = {}
    try:
        with open(os.path.join(run, "machine.txt")) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                out[k] = v
    except OSError:
        pass
    return out


def verdict(ok):
    return "met" if ok else "NOT MET"


def fnum(x, pattern="{:.3f}"):
    return "-" if x is None else pattern.format(x)


# ---- dp --------------------------------------------------------------------------------------------------------------
def dp_rows(run):
    path = os.path.join(run, "dp", "dp", "cifar-vs-ddp", "summary.csv")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        rows = list(csv.DictReader(f))
    rounds = machine(os.path.join(run, "dp")).get("rounds", "?")

    def speedup(route, n):
        for r in rows:
            if r["route"] == route and int(r["ranks"]) == n:
                try:
                    v = float(r.get("speedup_paired") or "nan")
                except ValueError:
                    v = float("nan")
                lo, hi = r.get("speedup_lo"), r.get("speedup_hi")
                return (v if v == v else float(r["speedup"])), lo, hi
        return None

    out = {}
    for n, target in DP_TARGET.items():
        ours, ddp = speedup("nccl", n), speedup("ddp", n)
        if ours is None:
            continue
        s, lo, hi = ours
        spread = f" (rounds {float(lo):.3f}-{float(hi):.3f})" if lo and hi else ""
        anchor = "no DDP run" if ddp is None else f"DDP {ddp[0]:.3f}x" + (
            f" (rounds {float(ddp[1]):.3f}-{float(ddp[2]):.3f})" if ddp[1] and ddp[2] else "")
        ahead = "" if ddp is None else ("; ahead of DDP" if s >= ddp[0] else "; behind DDP")
        out[n] = (f"{s:.3f}x{spread}, median of {rounds} paired rounds", anchor,
                  f">= {target:.2f}x", verdict(s >= target) + ahead)
    return out


# ---- step ------------------------------------------------------------------------------------------------------------
def step_samples(run):
    """{(round, batch): {("toolkit"|"torch", mode): ms}} from every round-N/*.json of the sweep."""
    out = {}
    for path in sorted(glob.glob(os.path.join(run, "step", "round-*", "*.json"))):
        m = re.search(r"round-(\d+)", path)
        with open(path) as f:
            doc = json.load(f)
        torch = "torch" in doc
        if os.path.basename(path).startswith("toolkit-"):
            continue        # the unfused run is a column of train-sweep-report, no target
        for r in doc.get("results", []):
            n = NAME.fullmatch(r.get("name", "")) if r.get("group") == "train" else None
            modes = TORCH_SUFFIX if torch else TOOLKIT_SUFFIX
            if n and n.group(4) in modes:
                out.setdefault((int(m.group(1)), int(n.group(1))), {})[("torch" if torch else "toolkit", modes[n.group(4)])] = r["ms"]
    return out


def step_rows(run):
    samples = step_samples(run)
    if not samples:
        return None
    batches = sorted({b for _, b in samples})
    rounds = sorted({r for r, _ in samples})
    detail, ratios = [], {}
    torch_modes = [m for m in TORCH_SUFFIX.values() if any(("torch", m) in s for s in samples.values())]
    for b in batches:
        per = [samples[(r, b)] for r in rounds if (r, b) in samples]

        def med(key):
            v = [s[key] for s in per if key in s]
            return statistics.median(v) if v else None

        within = []
        for s in per:
            theirs = [v for (side, _), v in s.items() if side == "torch"]
            if ("toolkit", "graphed") in s and theirs:
                within.append(min(theirs) / s[("toolkit", "graphed")])
        ratios[b] = statistics.median(within) if within else None
        best = min(((med(("torch", m)), m) for m in torch_modes if med(("torch", m)) is not None), default=(None, None))
        detail.append((b, med(("toolkit", "graphed")), med(("toolkit", "eager")), [med(("torch", m)) for m in torch_modes],
                       best, ratios[b], (min(within), max(within)) if within else None))
    graphed_big = next((d[1] for d in detail if d[0] == STEP_BATCH), None)
    measured = [r for r in ratios.values() if r is not None]
    low_b = min((b for b in ratios if ratios[b] is not None), key=lambda b: ratios[b], default=None)
    ok = (graphed_big is not None and graphed_big <= STEP_MS_TARGET and len(measured) == len(batches)
          and STEP_BATCH in batches and all(r >= STEP_RATIO_TARGET for r in measured))
    figure = (f"graphed {fnum(graphed_big)} ms at {STEP_BATCH}; "
              + (f"{min(measured):.2f}x-{max(measured):.2f}x PyTorch's fastest (lowest at batch {low_b})" if measured else "no ratio")
              + f"; median of {len(rounds)} round(s)")
    anchor = "PyTorch's fastest of " + ", ".join(torch_modes) + ", per batch and round"
    row = (figure, anchor, f"<= {STEP_MS_TARGET} ms at {STEP_BATCH}, >= {STEP_RATIO_TARGET}x at every batch", verdict(ok))
    lines = ["| batch | toolkit graphed | toolkit eager | " + " | ".join(f"PyTorch {m}" for m in torch_modes)
             + " | PyTorch's fastest | graphed vs fastest (rounds) |",
             "|" + " --- |" * (len(torch_modes) + 5)]
    for b, g, e, ts, (bms, bm), ratio, spread in detail:
        lines.append(f"| {b} | {fnum(g)} | {fnum(e)} | " + " | ".join(fnum(t) for t in ts)
                     + f" | {bm or '-'} {fnum(bms)} | {fnum(ratio, '{:.2f}x')}"
                     + (f" ({spread[0]:.2f}-{spread[1]:.2f})" if spread else "") + " |")
    return row, "ms per step, median of the rounds; the ratio is taken within each round, then the median:\n\n" + "\n".join(lines)


# ---- bw --------------------------------------------------------------------------------------------------------------
def busbw(path, collective="allReduce"):
    """{size: busbw GB/s} of the in-place rows."""
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["collective"] == collective and r["placement"] == "in-place":
                try:
                    out[int(r["size_bytes"])] = float(r["busbw_GBps"])
                except ValueError:
                    pass
    return out


def bw_pairs(run):
    """(anchor's name, [(ours, theirs) per round]): nccl-tests where it ran, else torch.distributed."""
    base = os.path.join(run, "bw", "nccl-tests")
    pairs = []
    for theirs in sorted(glob.glob(os.path.join(base, "nccl-tests-all_reduce.csv")) + glob.glob(os.path.join(base, "r*", "nccl-tests-all_reduce.csv"))):
        ours = os.path.join(os.path.dirname(theirs), "harness", "bandwidth.csv")
        if os.path.exists(ours):
            pairs.append((busbw(ours), busbw(theirs)))
    if pairs:
        return "nccl-tests all_reduce_perf", pairs
    for theirs in sorted(glob.glob(os.path.join(run, "bw", "torch", "bw", "n2", "r*", "torch.csv"))):
        ours = os.path.join(os.path.dirname(theirs), "nccl", "bandwidth.csv")
        if os.path.exists(ours):
            pairs.append((busbw(ours), busbw(theirs)))
    return ("torch.distributed all_reduce (no nccl-tests)", pairs) if pairs else (None, [])


def size_name(b):
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << k:
            return f"{b / (1 << k):g} {unit}"
    return f"{b} B"


def bw_rows(run):
    anchor, pairs = bw_pairs(run)
    if not pairs:
        return None
    sizes = sorted({s for ours, theirs in pairs for s in ours if s >= BW_FROM and s in theirs and theirs[s] > 0})
    if not sizes:
        return None
    lines = ["| size | toolkit GB/s | anchor GB/s | ratio (rounds) |", "| --- | --- | --- | --- |"]
    ratios = {}
    for s in sizes:
        within = [o[s] / t[s] for o, t in pairs if s in o and s in t and t[s] > 0]
        ratios[s] = statistics.median(within)
        lines.append(f"| {size_name(s)} | {statistics.median(o[s] for o, t in pairs if s in o):.2f} | "
                     f"{statistics.median(t[s] for o, t in pairs if s in t):.2f} | {ratios[s]:.3f} "
                     f"({min(within):.3f}-{max(within):.3f}) |")
    low = min(sizes, key=lambda s: ratios[s])
    row = (f"lowest ratio {ratios[low]:.3f} at {size_name(low)} ({size_name(sizes[0])} .. {size_name(sizes[-1])}, "
           f"median of {len(pairs)} round(s))", anchor, f">= {BW_RATIO_TARGET:.2f}x at every size from {size_name(BW_FROM)}",
           verdict(all(r >= BW_RATIO_TARGET for r in ratios.values())))
    return row, "busbw in place, toolkit harness / anchor per round, then the median:\n\n" + "\n".join(lines)


# ---- the table -------------------------------------------------------------------------------------------------------
def first(runs, fn):
    for run in runs:
        got = fn(run)
        if got:
            return run, got
    return None, None


def fewer(m, key, n):
    return m.get(key, "").isdigit() and int(m[key]) < n


def not_run(runs, part, gpus_needed=0):
    """Why a row has no figure: the GPU count, the GPUs the dp part was given, or the calls that did not run its part."""
    ms = [machine(r) for r in runs]
    counts = sorted({m.get("gpus", "?") for m in ms})
    if gpus_needed and all(fewer(m, "gpus", gpus_needed) for m in ms):
        return f"not run: {', '.join(counts)} GPUs"
    if part == "dp" and gpus_needed and all(fewer(m, "dp_gpus", gpus_needed) for m in ms):
        return f"not run: DP_GPUS={' / '.join(m['dp_gpus'] for m in ms)}"
    if all(part not in m.get("parts", "").split() for m in ms):
        return f"not run: PARTS={' / '.join(m.get('parts', '?') for m in ms)}"
    return "no figures (see the part's log)"


def report(runs):
    out = ["# GPU targets", ""]
    for run in runs:
        m = machine(run)
        out.append(f"- {os.path.basename(os.path.abspath(run))}: {m.get('date', '?')}, {m.get('gpus', '?')}x {m.get('gpu', '?')} "
                   f"(driver {m.get('driver', '?')}, CUDA {m.get('cuda', '?')}), torch {m.get('torch', '?')}; bundle built from "
                   f"{m.get('commit', '?')}; `{m.get('command', '?')}`")
    out += ["", "| row | figure | anchor (same run) | target | verdict |", "| --- | --- | --- | --- | --- |"]
    sections = []
    def source(run):
        return f" [{os.path.basename(os.path.abspath(run))}]" if len(runs) > 1 else ""

    dp_run, dp = first(runs, dp_rows)
    for n in (2, 4):
        label = f"{n}-GPU speedup, CIFAR-shaped set, 3 epochs"
        if dp and n in dp:
            out.append(f"| {label}{source(dp_run)} | " + " | ".join(dp[n]) + " |")
        else:
            why = not_run(runs, "dp", n) if not dp else not_run([dp_run], "dp", n)
            out.append(f"| {label} | {why} | PyTorch DDP | >= {DP_TARGET[n]:.2f}x | - |")
    for part, label, fn, target in (
            ("step", "one-GPU step, batch " + "/".join(str(b) for b in (128, 512, 2048, 8192)), step_rows,
             f"<= {STEP_MS_TARGET} ms at {STEP_BATCH}, >= {STEP_RATIO_TARGET}x at every batch"),
            ("bw", "NCCL all-reduce busbw, 2 GPUs", bw_rows, f">= {BW_RATIO_TARGET:.2f}x at every size")):
        run, got = first(runs, fn)
        if got:
            row, detail = got
            out.append(f"| {label}{source(run)} | " + " | ".join(row) + " |")
            sections += ["", f"## {label}", "", detail]
        else:
            out.append(f"| {label} | {not_run(runs, part, 2 if part == 'bw' else 1)} | - | {target} | - |")
    return "\n".join(out + sections) + "\n"


def main():
    args = sys.argv[1:]
    out = None
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    text = report(args)
    print(text, end="")
    if out:
        with open(out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
