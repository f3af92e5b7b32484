#!/usr/bin/env bash
# The tidy5 changes on the GPU machine (2 GPUs), about 2 minutes:
#   junit   the GPU tests that run what moved or changed:
#           - NcclCommunicator's launching/settling/waiting, moved into NcclCalls (pure move): NcclGpuTest (both NCCL
#             modes, split, barrier, synchronize, group calls, mismatch and timeout errors), DataParallelGpuTest
#             (all-reduces eager and recorded into CUDA graphs)
#           - LabelChecks' recorded slots now pooled per GraphRecording: LabelChecksGpuTest (new: slots reused by the
#             next recording; a closed recording's bad label reported once), StepGraphsGpuTest, StepWorkCountGpuTest,
#             CudaFusedOpsTest (eager label checks)
#           - RankEngines' cell loop, moved into CellCollector (pure move): RankEnginesGpuTest
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/tidy5 bash results/device/tidy5-check.sh
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/tidy5}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"     # NCCL multicast off, the bundle checked, note, header, SUMMARY
header tidy5-check
TESTS='org\.mpi2nccl\.(comm\.nccl\.NcclGpuTest|dist\.(DataParallelGpuTest|StepGraphsGpuTest|StepWorkCountGpuTest)|cuda\.(LabelChecksGpuTest|CudaFusedOpsTest)|kernel\.mpj\.RankEnginesGpuTest)'
JUNIT_REPORTS="$work/junit" run junit 400 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-tag gpu \
    --include-classname "$TESTS"
cp "$OUT/junit.txt" "$work/" 2>/dev/null
junit_totals "$OUT/junit.txt"
grep -E 'MethodSource|=> |label checks:' "$OUT/junit.txt" | head -20 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY"
left=$(pgrep -a java); if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/tidy5.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
