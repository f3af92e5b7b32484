#!/usr/bin/env bash
# Session 5's last GPU runs on the 2-GPU machine (the 1-GPU tests ran on one H200: junit-gpu-1x-a715cc4.txt):
#   junit2  the GPU tests that need 2 GPUs: DataParallelGpuTest (both graph paths, with the split update) and
#           NcclGpuTest (NcclCalls, the tidy5 move), about 1.5 minutes
#   then, run separately with Fashion-MNIST carried: step-probe.sh sweep (SWEEP=split) and dist-check.sh fashion cifar
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/final5-check.sh
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/final5}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"     # NCCL multicast off, the bundle checked, note, header, SUMMARY
header final5-check
JUNIT_REPORTS="$work/junit" run junit2 400 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-tag gpu \
    --include-classname 'org\.mpi2nccl\.(dist\.DataParallelGpuTest|comm\.nccl\.NcclGpuTest)'
cp "$OUT/junit2.txt" "$work/" 2>/dev/null
junit_totals "$OUT/junit2.txt"
grep -E 'MethodSource|=> |max relative' "$OUT/junit2.txt" | head -20 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY"
left=$(pgrep -a java); if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/final5.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
