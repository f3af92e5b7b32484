#!/usr/bin/env bash
# compute-sanitizer over every kernel the CUDA backend launches, in the JVM that runs them (small sizes):
#   memcheck  out-of-bounds and misaligned accesses, CUDA API errors: the GPU tests of the Backend contract, the
#             fused ops, the streaming kernels with every kernel variant (transposes, one-pass reductions), CUDA vs
#             CPU and the gradients;
#   racecheck shared-memory hazards of the kernels that share a tile or partials between threads (the tiled
#             transposes, the reductions): the streaming-kernel tests only.
# The toolkit logs each kernel the first time it launches it (MPI2NCCL_KERNEL_LOG); the log is compared with the
# full list (mpi2nccl doctor-gpu --kernels), so the summary says which kernels the run covered and which not.
# Prints, per tool, one line:  "<tool>: N errors; kernels covered: X of Y (not launched: ...); tests: ..."
# About 1-4 minutes (SANITIZER_TOOLS=memcheck: the memcheck alone). Run from the repository root with the bundle at ./bundle (or $BUNDLE); results under $OUT.
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "cuda-sanitizer"
CS=$(command -v compute-sanitizer || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -z "$CS" ] && [ -x "$c" ] && CS=$c
done
if [ -z "$CS" ]; then
  note "== sanitizer: skipped (compute-sanitizer not found in PATH or /usr/local/cuda)"
  exit 0
fi
# every test that launches kernels: whole classes, and the two CudaRuntimeTest methods that launch kernels (the
# casts; every module on both PTX targets) without its tests of failing allocations, which the sanitizer would count
MEMCHECK_TESTS=(--select-class org.mpi2nccl.tensor.CudaBackendContractTest --select-class org.mpi2nccl.cuda.CudaFusedOpsTest
  --select-class org.mpi2nccl.cuda.CudaStreamingKernelsTest --select-class org.mpi2nccl.cuda.CudaVsCpuTest
  --select-class org.mpi2nccl.cuda.CudaGradientsTest --select-class org.mpi2nccl.cuda.PinnedUploadsTest
  --select-method 'org.mpi2nccl.cuda.CudaRuntimeTest#castsRoundTrip'
  --select-method 'org.mpi2nccl.cuda.CudaRuntimeTest#bothPtxTargetsJitAndRunEveryModule')
"$BUNDLE/bin/mpi2nccl" doctor-gpu --kernels > "$OUT/kernels-all.txt" 2>&1 || note "   (doctor-gpu --kernels failed: see $OUT/kernels-all.txt)"

# sanitize TOOL LIMIT SELECTORS...: one compute-sanitizer run and its summary line
sanitize() {
  local tool=$1 limit=$2 log="$OUT/kernels-launched-$1.txt" rc
  shift 2
  rm -f "$log"
  MPI2NCCL_KERNEL_LOG="$log" JUNIT_REPORTS="$OUT/junit-$tool" run "sanitizer-$tool" "$limit" "$CS" --tool "$tool" \
    --target-processes all --error-exitcode 86 --print-limit 100 \
    "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors "$@"
  rc=$?
  local txt="$OUT/sanitizer-$tool.txt" errors covered total missing tests
  errors=$(grep -E '========= ERROR SUMMARY: [0-9]+ error' "$txt" | tail -1 | grep -oE '[0-9]+ error' | grep -oE '[0-9]+')
  [ -z "$errors" ] && errors="no ERROR SUMMARY line (the sanitizer did not finish: exit $rc)"
  total=$(grep -cE '^[a-z_0-9]+\.cu:' "$OUT/kernels-all.txt" 2>/dev/null || echo 0)
  if [ -s "$log" ]; then
    covered=$(sort -u "$log" | grep -cxFf <(grep -oE '^[a-z_0-9]+\.cu:[a-z_0-9]+' "$OUT/kernels-all.txt"))
    missing=$(grep -oE '^[a-z_0-9]+\.cu:[a-z_0-9]+' "$OUT/kernels-all.txt" | grep -vxFf <(sort -u "$log") | sed 's/.*://' | tr '\n' ' ')
  else
    covered=0
    missing="(no kernel log written: is the bundle older than MPI2NCCL_KERNEL_LOG?)"
  fi
  tests=$(grep -E '^\[ +[0-9]+ tests (successful|failed|skipped)' "$txt" | sed -E 's/^\[ +([0-9]+) tests ([a-z]+).*/\1 \2/' | tr '\n' ',' | sed 's/,$//; s/,/, /g')
  note "    $tool: $errors errors; kernels covered: $covered of $total${missing:+ (not launched: ${missing% })}; tests: ${tests:-none ran}"
  grep -E '^========= (Invalid|Race|Error|Program hit)' "$txt" | sort | uniq -c | sort -rn | head -10 | sed 's/^/      /' | tee -a "$SUMMARY"
  return $rc
}

# SANITIZER_TOOLS="memcheck" runs only the memcheck; SANITIZER_LIMIT caps each tool's seconds
rc=0 rc2=0
case " ${SANITIZER_TOOLS:-memcheck racecheck} " in *" memcheck "*)
  sanitize memcheck "${SANITIZER_LIMIT:-300}" "${MEMCHECK_TESTS[@]}"; rc=$? ;; esac
case " ${SANITIZER_TOOLS:-memcheck racecheck} " in *" racecheck "*)
  sanitize racecheck "${SANITIZER_LIMIT:-300}" --select-class org.mpi2nccl.cuda.CudaStreamingKernelsTest; rc2=$? ;; esac
note "done: $OUT"
[ $rc = 0 ] && exit $rc2
exit $rc
