#!/usr/bin/env bash
# Does a GPU's training step slow down while the machine's other GPUs work too? The one-GPU CNN step on GPU 0 alone,
# then on every GPU at once with nothing exchanged between them, in alternating rounds: the toolkit's step
# (bench-gpu --only train: eager with 8 steps queued, and replayed from a CUDA graph) and PyTorch's whole-step CUDA
# graph (torch_peer.py) beside it. The difference is the part of the data-parallel step's extra time over one GPU
# that no communication setting can remove. A benchmark to read, not a test.
# Usage, from the repository root with the bundle unpacked:
#   BUNDLE=/tmp/bundle OUT=$OUT bash scripts/gpu/concurrent-gpus.sh      (ROUNDS=3 BATCH=128 WARMUP=2)
# Writes $OUT/concurrent/*.json (bench-gpu's and torch_peer.py's JSON) and $OUT/concurrent.txt (the table).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cuda-common.sh"       # note, header, gpu_count, torch_python
header "concurrent-gpus"
torch_python
N=$(gpu_count)
ROUNDS=${ROUNDS:-3}; BATCH=${BATCH:-128}; WARMUP=${WARMUP:-2}
[ "${N:-0}" -ge 2 ] 2>/dev/null || { note "concurrent-gpus: $N GPU(s) here; it needs 2 or more"; exit 2; }
dir="$OUT/concurrent"; mkdir -p "$dir"

# step SIDE GPU JSON: one side's step on one GPU (chosen by CUDA_VISIBLE_DEVICES: both sides then use device 0)
step() {
  if [ "$1" = toolkit ]; then
    CUDA_VISIBLE_DEVICES=$2 timeout --kill-after=10 180 "$BUNDLE/bin/mpi2nccl" bench-gpu --only train --batch "$BATCH" \
        --train-warmup "$WARMUP" --json "$3"
  else
    CUDA_VISIBLE_DEVICES=$2 timeout --kill-after=10 180 "$PY" "$here/torch_peer.py" --only train --train-modes cuda-graph \
        --batch "$BATCH" --train-warmup "$WARMUP" --json "$3"
  fi
}
alone() {
  step "$1" 0 "$dir/$1-alone-r$2.json" > "$dir/$1-alone-r$2.txt" 2>&1 || note "== $1 on GPU 0 alone, round $2: exit $?"
  note "== $1-alone-r$2: GPU 0 alone"
}
together() {
  local g pids=()
  for g in $(seq 0 $((N - 1))); do
    step "$1" "$g" "$dir/$1-all-r$2-gpu$g.json" > "$dir/$1-all-r$2-gpu$g.txt" 2>&1 &
    pids+=($!)
  done
  for g in "${!pids[@]}"; do wait "${pids[$g]}" || note "== $1 on GPU $g beside the others, round $2: exit $?"; done
  note "== $1-all-r$2: $N GPUs at once"
}
for r in $(seq 1 "$ROUNDS"); do
  for side in toolkit torch; do
    if [ $((r % 2)) = 1 ]; then alone "$side" "$r"; together "$side" "$r"; else together "$side" "$r"; alone "$side" "$r"; fi
  done
done

# The table: per figure, the median over rounds of GPU 0 alone and of every GPU beside the others.
"$PY" - "$dir" "$N" <<'EOF' | tee "$OUT/concurrent.txt" | tee -a "$SUMMARY"
import glob, json, os, re, statistics, sys
folder, n = sys.argv[1], int(sys.argv[2])
keep = re.compile(r"(8 queued: GPU time|graphed|cuda graph)$")
rows = {}
for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
    m = re.match(r"(toolkit|torch)-(alone|all)-r(\d+)(?:-gpu(\d+))?\.json", os.path.basename(path))
    if not m:
        continue
    side, how, _, gpu = m.groups()
    where = "GPU 0 alone" if how == "alone" else f"GPU {gpu} beside {n - 1} busy"
    for r in json.load(open(path))["results"]:
        if r.get("group") == "train" and keep.search(r["name"]):
            rows.setdefault((side, r["name"]), {}).setdefault(where, []).append(r["ms"] * 1000)
print(f"us per step, median over rounds (each round: GPU 0 alone, then all {n} GPUs at once, or the other way round)")
for (side, name), by in sorted(rows.items()):
    base = statistics.median(by.get("GPU 0 alone", [float("nan")]))
    print(f"{side}: {name}")
    for where, values in sorted(by.items()):
        med = statistics.median(values)
        print(f"  {where:22s} {med:8.1f} us  ({len(values)} rounds: {min(values):.1f}-{max(values):.1f})  {med - base:+6.1f} us")
EOF
