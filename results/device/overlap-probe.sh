#!/usr/bin/env bash
# Issue 7: what the all-reduce costs a 2-GPU step replayed from CUDA graphs (backward runs beside NCCL's kernels, and
# the last bucket's all-reduce is the step's tail). One run of about 1.5 minutes, synthetic CIFAR-shaped data
# (nothing to carry): 1 and 2 GPUs as the experiment runs them, then 2 GPUs with one thing changed at a time:
# NCCL held to 4 or 2 CTAs (NCCL_MAX_CTAS), 2 MiB gradient buckets (the fully connected layers in one bucket).
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/out EPOCHS=5 bash results/device/overlap-probe.sh
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/overlap-probe}; EPOCHS=${EPOCHS:-5}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"     # NCCL multicast off, the bundle checked, note, header, SUMMARY
header overlap-probe
variant() {
  local name=$1 ranks=$2; shift 2
  env "$@" timeout --kill-after=10 200 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks "$ranks" --epochs "$EPOCHS" \
      --batch-per-rank 128 --data synthetic-cifar ${RUN_OPTS:-} --out "$work/$name" > "$work/$name.txt" 2>&1
  note "== $name: exit $? $*"
  grep -E '^(single|nccl) +[0-9]' "$work/$name.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
}
timeout --kill-after=10 120 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 2 --epochs 1 --data synthetic-cifar \
    --train-examples 20000 --test-examples 1000 --out "$work/machine-warm-up" > /dev/null 2>&1
variant base 1,2 A=1
variant ctas4 2 NCCL_MAX_CTAS=4
RUN_OPTS="--bucket-kib 2048" variant bucket2m 2 A=1
variant ctas2 2 NCCL_MAX_CTAS=2
RUN_OPTS="--bucket-kib 2048" variant bucket2m-ctas4 2 NCCL_MAX_CTAS=4
variant base-again 2 A=1
tar czf "$OUT/overlap-probe.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
