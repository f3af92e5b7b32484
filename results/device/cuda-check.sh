#!/usr/bin/env bash
# The CUDA backend on a GPU machine, in one run: doctor, the GPU test suite (both PTX targets), the CPU fallback
# with CUDA switched off, compute-sanitizer memcheck on the kernels, and the benchmarks next to PyTorch.
#
# Run from the repository root on the GPU machine, with the lead's bundle unpacked at ./bundle (or $BUNDLE):
#     bash results/device/cuda-check.sh                 # everything (about 5-8 minutes)
#     STEPS="doctor tests" bash results/device/cuda-check.sh    # a subset: doctor tests sm75 fallback bench sanitizer
# Writes everything under $OUT (default /tmp/cuda-check) and prints $OUT/summary.txt at the end.
set -uo pipefail

BUNDLE=${BUNDLE:-bundle}
OUT=${OUT:-/tmp/cuda-check}
STEPS=${STEPS:-"doctor tests sm75 fallback bench sanitizer"}
mkdir -p "$OUT"
# NVLink multicast can take a shared host's GPUs out of service: off for every program here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

# the tests that launch every kernel the backend uses (bin/mpi2nccl-test scans the class path: select by name)
KERNEL_TESTS='org\.mpi2nccl\.(tensor\.CudaBackendContractTest|cuda\.CudaFusedOpsTest)'
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
want() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
# run NAME TIMEOUT CMD...: output to $OUT/NAME.txt, exit code and seconds to the summary
run() {
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@" > "$OUT/$name.txt" 2>&1
  rc=$?
  note "== $name: exit $rc in $((SECONDS - t0)) s$([ $rc = 124 ] && echo " (TIMED OUT after $limit s)")  -> $OUT/$name.txt"
  return $rc
}
# the JUnit console's totals ("[ N tests successful ]" ...) of a test log
junit_totals() { grep -E '^\[ +[0-9]+ tests (found|successful|failed|skipped|aborted)' "$1" | sed 's/^/    /' | tee -a "$SUMMARY"; }

[ -x "$BUNDLE/bin/mpi2nccl" ] || { echo "no bundle at $BUNDLE (set BUNDLE=/path/to/bundle)"; exit 2; }
note "cuda-check $(date -u +%FT%TZ) on $(hostname); repo $(git rev-parse --short HEAD 2>/dev/null || echo '?'); steps: $STEPS"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 && nvidia-smi -L | sed 's/^/    /' | tee -a "$SUMMARY"

if want doctor; then
  run doctor-gpu 120 "$BUNDLE/bin/mpi2nccl" doctor-gpu
  "$BUNDLE/bin/mpi2nccl" doctor-gpu --json > "$OUT/doctor-gpu.json" 2>/dev/null
  grep -E '^\s+(OK|WARN|MISSING|FAIL|INFO)' "$OUT/doctor-gpu.txt" | sed 's/^/  /' | tee -a "$SUMMARY"
fi

if want tests; then
  # Every @Tag("gpu") test: the Backend contract on cuda:0, runtime (contexts, memory, scopes, pinned copies,
  # streams, events, both PTX targets), fused ops, CUDA vs CPU on NDArray programs, 1000-step memory test.
  JUNIT_REPORTS="$OUT/junit-gpu" run gpu-tests 420 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-tag gpu
  junit_totals "$OUT/gpu-tests.txt"
  grep -E '✘|MethodSource|=> ' "$OUT/gpu-tests.txt" | head -40 > "$OUT/gpu-tests-failures.txt"
  [ -s "$OUT/gpu-tests-failures.txt" ] && note "    failures (first lines): $OUT/gpu-tests-failures.txt"
  grep -E '^(GPU:|pool reserved|pinned|sm90:|sm75:|GEMM 256|cuda:0|CUDA backend:|CNN step:)' "$OUT/gpu-tests.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
fi

if want sm75; then
  # The portable PTX (compute_75) JIT-compiled for this GPU, through the whole contract.
  MPI2NCCL_PTX_TARGET=sm75 JUNIT_REPORTS="$OUT/junit-sm75" run contract-sm75 300 "$BUNDLE/bin/mpi2nccl-test" \
    --disable-ansi-colors --include-classname "$KERNEL_TESTS"
  junit_totals "$OUT/contract-sm75.txt"
fi

if want fallback; then
  # With CUDA switched off, the toolkit must pick the CPU and say why; asking for cuda:0 must be a clear error.
  MPI2NCCL_DISABLE_CUDA=1 JUNIT_REPORTS="$OUT/junit-fallback" run fallback 120 "$BUNDLE/bin/mpi2nccl-test" \
    --disable-ansi-colors --include-classname 'org\.mpi2nccl\.cuda\.NoGpuTest'
  junit_totals "$OUT/fallback.txt"
fi

if want bench; then
  run bench-java 300 "$BUNDLE/bin/mpi2nccl" bench-gpu --json "$OUT/bench-java.json"
  PY=${PYTHON:-python3}
  if ! "$PY" -c 'import torch' 2>/dev/null; then
    for p in /opt/torch/.venv/bin/python3 /opt/*/.venv/bin/python3; do "$p" -c 'import torch' 2>/dev/null && { PY=$p; break; }; done
  fi
  if "$PY" -c 'import torch' 2>/dev/null; then
    run bench-torch 300 "$PY" results/device/torch_peer.py --json "$OUT/bench-torch.json"
    if [ -s "$OUT/bench-java.json" ] && [ -s "$OUT/bench-torch.json" ]; then
      "$PY" results/device/compare.py "$OUT/bench-java.json" "$OUT/bench-torch.json" > "$OUT/compare.txt" 2>&1
      sed 's/^/    /' "$OUT/compare.txt" | tee -a "$SUMMARY"
    fi
  else
    note "== bench-torch: skipped (no python3 with torch found; set PYTHON=/path/to/python)"
  fi
fi

if want sanitizer; then
  CS=$(command -v compute-sanitizer || true)
  for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -z "$CS" ] && [ -x "$c" ] && CS=$c
  done
  if [ -n "$CS" ]; then
    # memcheck over every kernel the backend launches (contract + fused ops): out-of-bounds and misaligned
    # accesses, and CUDA API errors, in the JVM that runs them.
    JUNIT_REPORTS="$OUT/junit-sanitizer" run sanitizer-memcheck 420 "$CS" --tool memcheck --target-processes all \
      --error-exitcode 86 --print-limit 100 "$BUNDLE/bin/mpi2nccl-test" \
      --disable-ansi-colors --include-classname "$KERNEL_TESTS"
    grep -E 'ERROR SUMMARY' "$OUT/sanitizer-memcheck.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
    junit_totals "$OUT/sanitizer-memcheck.txt"
  else
    note "== sanitizer: skipped (compute-sanitizer not found in PATH or /usr/local/cuda)"
  fi
fi

note "done: $OUT"
