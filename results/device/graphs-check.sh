#!/usr/bin/env bash
# Issue 7: training steps replayed from CUDA graphs (DataParallelOptions.cudaGraphs, `mpi2nccl run --cuda-graphs`),
# one run of about 3-4 minutes on the 2-GPU machine:
#   junit   StepGraphsGpuTest (graphs train exactly as eager steps), StepWorkCountGpuTest, DataParallelGpuTest
#   pairs   the Fashion-MNIST speedup experiment (NCCL route, 1 and 2 GPUs) without and with --cuda-graphs,
#           alternated ROUNDS times (the machine's speed drifts between runs: compare neighbours)
# Usage, from the repository root (bundle unpacked at $BUNDLE, Fashion-MNIST carried in data/fashion-mnist):
#   BUNDLE=/tmp/bundle OUT=/tmp/out EPOCHS=10 ROUNDS=2 bash results/device/graphs-check.sh [junit] [pairs]
# Results: $OUT/summary.txt, $OUT/graphs-check.tgz (logs, CSVs).
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/graphs-check}; EPOCHS=${EPOCHS:-10}; ROUNDS=${ROUNDS:-2}
FASHION_DIR=${FASHION_DIR:-$PWD/data/fashion-mnist}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"     # NCCL multicast off, the bundle checked, note, header, SUMMARY
header graphs-check
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(junit pairs)
experiment() {
  local name=$1; shift
  local t0=$SECONDS
  timeout --kill-after=10 240 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 1,2 --epochs "$EPOCHS" \
      --batch-per-rank 128 --data fashion --data-dir "$FASHION_DIR" --out "$work/$name" "$@" > "$work/$name.txt" 2>&1
  note "== $name: exit $? in $((SECONDS - t0)) s $*"
  grep -E '^(single|nccl) +[0-9]|CUDA graphs|graphs off' "$work/$name.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
}
for s in "${steps[@]}"; do
  case "$s" in
    junit)
      JUNIT_REPORTS="$work/junit" timeout --kill-after=10 400 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu \
          --include-classname 'org\.mpi2nccl\.dist\.(StepGraphsGpuTest|StepWorkCountGpuTest|DataParallelGpuTest)' > "$work/junit.txt" 2>&1
      note "== junit: exit $?"
      grep -E 'CUDA graphs:|kernel launches|max relative|tests (successful|failed|found)|AssertionFailed|Exception' "$work/junit.txt" \
          | head -12 | cut -c1-700 | sed 's/^/   /' | tee -a "$SUMMARY" ;;
    pairs)
      timeout --kill-after=10 120 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 2 --epochs 1 --data synthetic-cifar \
          --train-examples 20000 --test-examples 1000 --out "$work/machine-warm-up" > /dev/null 2>&1
      for r in $(seq 1 "$ROUNDS"); do
        experiment "eager-r$r" --no-cuda-graphs
        experiment "graphs-r$r" --cuda-graphs
      done ;;
    *) note "unknown step '$s' (junit, pairs)" ;;
  esac
done
left=$(pgrep -a java)
if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/graphs-check.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
