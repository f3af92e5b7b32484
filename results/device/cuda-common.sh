# Sourced by the cuda-*check.sh steps (results/device/gpu-suite.sh runs each *-check.sh with BUNDLE and OUT
# set; they also run alone from the repository root: bash results/device/cuda-check.sh).
BUNDLE=${BUNDLE:-bundle}
OUT=${OUT:-/tmp/cuda-check}
mkdir -p "$OUT"
# NVLink multicast can take a shared host's GPUs out of service: off for every program here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# the tests that launch every kernel the backend uses (bin/mpi2nccl-test scans the class path: select by name)
KERNEL_TESTS='org\.mpi2nccl\.(tensor\.CudaBackendContractTest|cuda\.CudaFusedOpsTest|cuda\.CudaStreamingKernelsTest)'
SUMMARY="$OUT/summary.txt"
[ -x "$BUNDLE/bin/mpi2nccl" ] || { echo "no bundle at $BUNDLE (set BUNDLE=/path/to/bundle)"; exit 2; }

note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
# run NAME TIMEOUT CMD...: output to $OUT/NAME.txt; exit code and seconds to the summary
run() {
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@" > "$OUT/$name.txt" 2>&1
  rc=$?
  note "== $name: exit $rc in $((SECONDS - t0)) s$([ $rc = 124 ] && echo " (TIMED OUT after $limit s)")  -> $OUT/$name.txt"
  return $rc
}
# the JUnit console's test totals of a log
junit_totals() { grep -E '^\[ +[0-9]+ tests (found|successful|failed|skipped|aborted)' "$1" | sed 's/^/    /' | tee -a "$SUMMARY"; }
header() { note "$1 $(date -u +%FT%TZ) on $(hostname); repo $(git rev-parse --short HEAD 2>/dev/null || echo '?')"; }
