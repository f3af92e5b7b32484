#!/usr/bin/env bash
# The tidy4 refactors on a GPU, about 2 minutes on one GPU (no NCCL, no second GPU needed):
#   junit   the GPU tests that launch what moved: CudaBackend's strided copies, training layers and optimizer steps
#           (now CudaStridedCopies, CudaTrainingLayers, CudaOptimizerSteps): CudaBackendContractTest (the whole
#           contract, with TrainingLayerContractTest and OptimizerStepContractTest as its superclasses),
#           CudaGradientsTest, CudaFusedOpsTest (softmax family, after the old kernels went), TrainingLoopMemoryTest,
#           CudaVsCpuTest, StepWorkCountGpuTest, StepGraphsGpuTest
#   bench   bench-gpu's gemm, gemm-calls (withGemmOperands) and train rows (TrainStepBench): same rows as before
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/tidy4 bash results/device/tidy4-check.sh [junit] [bench]
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/tidy4}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"     # NCCL multicast off, the bundle checked, note, header, SUMMARY
header tidy4-check
TESTS='org\.mpi2nccl\.(tensor\.CudaBackendContractTest|cuda\.(CudaGradientsTest|CudaFusedOpsTest|TrainingLoopMemoryTest|CudaVsCpuTest)|dist\.(StepWorkCountGpuTest|StepGraphsGpuTest))'
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(junit bench)
for s in "${steps[@]}"; do
  case "$s" in
    junit)
      JUNIT_REPORTS="$work/junit" run junit 300 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-tag gpu \
          --include-classname "$TESTS"
      cp "$OUT/junit.txt" "$work/" 2>/dev/null
      junit_totals "$OUT/junit.txt"
      grep -E 'MethodSource|=> ' "$OUT/junit.txt" | head -20 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY" ;;
    bench)
      run bench 200 "$BUNDLE/bin/mpi2nccl" bench-gpu --only gemm,gemm-calls,train --gemm-size 2048 --json "$work/bench.json"
      cp "$OUT/bench.txt" "$work/" 2>/dev/null
      grep -E 'sgemm|cnn' "$OUT/bench.txt" | head -20 | cut -c1-200 | sed 's/^/   /' | tee -a "$SUMMARY" ;;
    *) note "unknown step '$s' (junit, bench)" ;;
  esac
done
left=$(pgrep -a java); if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/tidy4.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
