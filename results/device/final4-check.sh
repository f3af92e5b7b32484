#!/usr/bin/env bash
# Session 4's last GPU run, about 5 minutes on the 2-GPU machine:
#   junit   every GPU test of the bundle (@Tag("gpu")): the CUDA backend after the session's refactors, the JavaCPP
#           launch route, CUDA graphs, NCCL, data-parallel equivalence on 2 GPUs, the kernel's GPU rank engines
#   bench   bench-gpu's gemm, gemm-calls and train rows (code the session moved, no JUnit test covers it)
#   ahead   the synthetic CIFAR-shaped experiment (NCCL, 1 and 2 GPUs, CUDA graphs) with the host allowed 4 and 8
#           steps ahead of the GPU (MPI2NCCL_STEPS_AHEAD), alternated twice
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/final4-check.sh [junit] [bench] [ahead]
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/final4}; EPOCHS=${EPOCHS:-5}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"     # NCCL multicast off, the bundle checked, note, header, SUMMARY
header final4-check
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(junit ahead)
for s in "${steps[@]}"; do
  case "$s" in
    junit)
      JUNIT_REPORTS="$work/junit" timeout --kill-after=10 300 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu > "$work/junit.txt" 2>&1
      note "== junit: exit $?"
      grep -E 'tests (found|successful|failed|skipped|aborted)|MethodSource|=> ' "$work/junit.txt" | head -24 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY" ;;
    bench)
      # the benchmarks the tidy4 refactor moved (no JUnit test covers them): their rows as before
      timeout --kill-after=10 150 "$BUNDLE/bin/mpi2nccl" bench-gpu --only gemm,gemm-calls,train --reps 5 > "$work/bench.txt" 2>&1
      note "== bench: exit $?"
      grep -E '^(gemm|train) |Exception' "$work/bench.txt" | cut -c1-160 | sed 's/^/   /' | tee -a "$SUMMARY" ;;
    ahead)
      timeout --kill-after=10 120 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 2 --epochs 1 --data synthetic-cifar \
          --train-examples 20000 --test-examples 1000 --out "$work/machine-warm-up" > /dev/null 2>&1
      for round in 1 2; do
        for n in 4 8; do
          MPI2NCCL_STEPS_AHEAD=$n timeout --kill-after=10 200 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 1,2 \
              --epochs "$EPOCHS" --batch-per-rank 128 --data synthetic-cifar --out "$work/ahead$n-r$round" > "$work/ahead$n-r$round.txt" 2>&1
          note "== $n steps ahead, round $round: exit $?"
          grep -E '^(single|nccl) +[0-9]' "$work/ahead$n-r$round.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
        done
      done ;;
    *) note "unknown step '$s' (junit, bench, ahead)" ;;
  esac
done
left=$(pgrep -a java); if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/final4.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
