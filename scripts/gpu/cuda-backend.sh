#!/usr/bin/env bash
# The CUDA backend on a GPU machine (about 1-2 minutes): the doctor report, the whole Backend contract with the
# portable PTX (compute_75, JIT-compiled for this GPU), and the CPU fallback with CUDA switched off.
# The GPU test suite itself (every @Tag("gpu") test) is in quick-check.sh; add STEPS="... tests" to run it here.
# Run from the repository root with the bundle at ./bundle (or $BUNDLE); results under $OUT.
#     bash scripts/gpu/cuda-backend.sh
#     STEPS="doctor tests sm75 fallback" bash scripts/gpu/cuda-backend.sh
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
STEPS=${STEPS:-"doctor sm75 fallback"}
want() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
header "cuda-backend ($STEPS)"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 && nvidia-smi -L | sed 's/^/    /' | tee -a "$SUMMARY"

if want doctor; then
  run doctor-gpu 120 "$BUNDLE/bin/mpi2nccl" doctor-gpu
  "$BUNDLE/bin/mpi2nccl" doctor-gpu --json > "$OUT/doctor-gpu.json" 2>/dev/null
  grep -E '^\s+(OK|WARN|MISSING|FAIL|INFO)' "$OUT/doctor-gpu.txt" | sed 's/^/  /' | tee -a "$SUMMARY"
fi

if want tests; then
  # every @Tag("gpu") test: contract on cuda:0, runtime, fused ops, CUDA vs CPU, gradients, 1000-step memory tests
  JUNIT_REPORTS="$OUT/junit-gpu" run gpu-tests 420 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-tag gpu
  junit_totals "$OUT/gpu-tests.txt"
  grep -E '^(GPU:|pool reserved|pinned|sm90:|sm75:|GEMM 256|cuda:0|CUDA backend:|CNN step:)' "$OUT/gpu-tests.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
fi

if want sm75; then
  MPI2NCCL_PTX_TARGET=sm75 JUNIT_REPORTS="$OUT/junit-sm75" run contract-sm75 180 "$BUNDLE/bin/mpi2nccl-test" \
    --disable-ansi-colors --include-classname "$KERNEL_TESTS"
  junit_totals "$OUT/contract-sm75.txt"
fi

if want fallback; then
  # CUDA switched off: the toolkit picks the CPU and says why; asking for cuda:0 is a clear error
  MPI2NCCL_DISABLE_CUDA=1 JUNIT_REPORTS="$OUT/junit-fallback" run fallback 120 "$BUNDLE/bin/mpi2nccl-test" \
    --disable-ansi-colors --include-classname 'org\.mpi2nccl\.cuda\.NoGpuTest'
  junit_totals "$OUT/fallback.txt"
  MPI2NCCL_DISABLE_CUDA=1 "$BUNDLE/bin/mpi2nccl" doctor-gpu 2>&1 | grep -E 'default device' | sed 's/^/    disabled: /' | tee -a "$SUMMARY"
fi
note "done: $OUT"
