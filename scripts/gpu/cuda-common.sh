# Sourced by the GPU scripts beside it (scripts/gpu/gpu-suite.sh runs each with BUNDLE and OUT set; they also run
# alone from the repository root: bash scripts/gpu/cuda-backend.sh).
BUNDLE=${BUNDLE:-bundle}
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
# NVLink multicast can take a shared host's GPUs out of service: off for every program here.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
# the tests that launch every kernel the backend uses (bin/mpi2nccl-test scans the class path: select by name)
KERNEL_TESTS='org\.mpi2nccl\.(tensor\.CudaBackendContractTest|cuda\.CudaFusedOpsTest|cuda\.CudaStreamingKernelsTest)'
SUMMARY="$OUT/summary.txt"
[ -x "$BUNDLE/bin/mpi2nccl" ] || { echo "no bundle at $BUNDLE (set BUNDLE=/path/to/bundle)"; exit 2; }

note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
# failure_lines LOG: a failed step's own words for the summary, its first exception lines and its last lines
failure_lines() {
  { grep -m 6 -E 'Exception|Error|failed|FAIL' "$1"; echo "   ..."; tail -n 8 "$1"; } | cut -c1-400 | sed 's/^/   ! /' | tee -a "$SUMMARY"
}
# run NAME TIMEOUT CMD...: output to $OUT/NAME.txt; exit code and seconds to the summary (and a failure's own words)
run() {
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@" > "$OUT/$name.txt" 2>&1
  rc=$?
  note "== $name: exit $rc in $((SECONDS - t0)) s$([ $rc = 124 ] && echo " (TIMED OUT after $limit s)")  -> $OUT/$name.txt"
  [ $rc != 0 ] && failure_lines "$OUT/$name.txt"
  return $rc
}
# the JUnit console's test totals of a log
junit_totals() { grep -E '^\[ +[0-9]+ tests (found|successful|failed|skipped|aborted)' "$1" | sed 's/^/    /' | tee -a "$SUMMARY"; }
header() { note "$1 $(date -u +%FT%TZ) on $(hostname); bundle built from $(cat "$BUNDLE/COMMIT" 2>/dev/null || echo '? (no COMMIT file)')"; }
# PY: a Python that has torch (PYTHON, else python3, else a venv under /opt), or python3 when none has it.
torch_python() {
  local p
  PY=${PYTHON:-python3}
  "$PY" -c 'import torch' 2>/dev/null && return 0
  for p in /opt/torch/.venv/bin/python3 /opt/*/.venv/bin/python3; do
    [ -x "$p" ] && "$p" -c 'import torch' 2>/dev/null && { PY=$p; return 0; }
  done
  return 0
}
# One NCCL for both sides of a comparison: torch's own (the library search would otherwise take the first
# libnccl.so.2 among the wheels: once 2.28.3 while torch ran 2.28.9). NCCL_HOME set by the caller wins.
use_torch_nccl() {
  local d
  [ -n "${NCCL_HOME:-}" ] && return 0
  d=$("$PY" -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null)
  if [ -n "$d" ] && [ -e "$d/lib/libnccl.so.2" ]; then export NCCL_HOME=$d; fi
  return 0
}
# GPUS: this machine's GPU count (nvidia-smi; GPUS set by the caller wins, e.g. to use fewer); 0 without a driver.
gpu_count() {
  if [ -n "${GPUS:-}" ]; then echo "$GPUS"; return 0; fi
  nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true
}
# gpu_counts N [FROM]: FROM (default 1), then doublings, and N itself: "1,2,4,8" for 8, "1,2,3" for 3, "2,4" for 4 from 2.
gpu_counts() {
  local n=$1 c=${2:-1} out=""
  while [ "$c" -le "$n" ]; do out="$out,$c"; c=$((c * 2)); done
  case ",$out," in *",$n,"*) ;; *) [ "$n" -ge "${2:-1}" ] && out="$out,$n" ;; esac
  echo "${out#,}"
}
