#!/usr/bin/env bash
# The tidy6 changes on the GPU machine (2 GPUs), about 2 minutes:
#   junit   every GPU test of org.mpi2nccl.dist and NcclGpuTest:
#           - an eager step now launches the buckets left after backward as one NCCL group, as a replay between graphs
#             did already: DataParallelGpuTest's eager NCCL test has a new run with overlap off and 2 KiB buckets (every
#             bucket in that group), against one GPU with the whole batch
#           - the CUDA-graph record/replay moved out of DataParallel into GraphedSteps, the bucket all-reduce into
#             GradientReduction (no change to kernels, NCCL calls, streams or events): DataParallelGpuTest (both graph
#             paths, NCCL recorded or called between the pieces), StepGraphsGpuTest (graphs train exactly as eager
#             steps), StepWorkCountGpuTest (launches per step unchanged)
#           - NcclGpuTest: the group calls and waits that the grouped tail goes through
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/tidy6 bash results/device/tidy6-check.sh
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/tidy6}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"     # NCCL multicast off, the bundle checked, note, header, SUMMARY
header tidy6-check
TESTS='org\.mpi2nccl\.(comm\.nccl\.NcclGpuTest|dist\..*)'
JUNIT_REPORTS="$work/junit" run junit 400 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-tag gpu \
    --include-classname "$TESTS"
cp "$OUT/junit.txt" "$work/" 2>/dev/null
junit_totals "$OUT/junit.txt"
# failures first (MethodSource, =>), then every equivalence figure (the new eager grouped run is "nccl route, cnn" x3)
grep -E 'MethodSource|=> ' "$OUT/junit.txt" | head -20 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY"
grep -E 'max relative|kernel launches|skipped' "$OUT/junit.txt" | grep -v '│' | awk '!seen[$0]++' | head -30 | cut -c1-300 \
    | sed 's/^/   /' | tee -a "$SUMMARY"
left=$(pgrep -a java); if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/tidy6.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
