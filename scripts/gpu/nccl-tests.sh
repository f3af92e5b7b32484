#!/usr/bin/env bash
# NVIDIA's nccl-tests beside the toolkit's bandwidth harness on this machine's GPUs, same NCCL (PyTorch's), same sizes:
#   1. build     nccl-tests' perf programs from a copy of its source outside the repository (an ignored folder:
#                fetch it, e.g. `git archive` of github.com/NVIDIA/nccl-tests into build/peers/nccl-tests, and
#                carry that folder), for this GPU's architecture only, without MPI (one process drives all GPUs)
#   2. nccl-tests  each perf program, 8 B .. 1 GiB, -> its text table and the harness's CSV (nccl_tests_csv.py)
#   3. harness   `mpi2nccl bandwidth -np N --comms nccl` over the same collectives and sizes (one process per GPU)
#   4. compare   `mpi2nccl bandwidth-compare`: busbw harness / nccl-tests per size from 1 MiB
# Usage, from the repository root with the bundle unpacked (about 2-3 minutes on 2 GPUs, most of it the build):
#   BUNDLE=/tmp/bundle OUT=$OUT bash scripts/gpu/nccl-tests.sh      (COLLECTIVES="all_reduce" ITERS=20 NCCL_TESTS_SRC=...)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cuda-common.sh"
header "nccl-tests"
torch_python
use_torch_nccl
SRC=$(cd "${NCCL_TESTS_SRC:-build/peers/nccl-tests}" 2>/dev/null && pwd) \
  || { note "nccl-tests: no source at ${NCCL_TESTS_SRC:-build/peers/nccl-tests} (see the usage above)"; exit 2; }
[ -n "${NCCL_HOME:-}" ] && [ -e "$NCCL_HOME/include/nccl.h" ] \
  || { note "nccl-tests: no NCCL with headers (NCCL_HOME=${NCCL_HOME:-unset}); PyTorch's nvidia-nccl wheel has them"; exit 2; }
N=$(gpu_count)
ITERS=${ITERS:-20}
COLLECTIVES=${COLLECTIVES:-all_reduce}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
note "   $N GPU(s), sm_$cc; nccl-tests $(cat "$SRC/COMMIT" 2>/dev/null || echo '(commit unknown)'); NCCL_HOME=$NCCL_HOME"
# the harness's name of each collective (its CSV and the comparison use them)
declare -A NAME=([all_reduce]=allReduce [all_gather]=allGather [reduce_scatter]=reduceScatter [broadcast]=broadcast)

run build 200 make -C "$SRC/src" -j "$(nproc)" MPI=0 CUDA_HOME="$CUDA_HOME" NCCL_HOME="$NCCL_HOME" \
    NVCC_GENCODE="-gencode=arch=compute_$cc,code=sm_$cc" BUILDDIR="$OUT/nccl-tests-build" BIN_FILES_LIST="$COLLECTIVES" \
  || exit 1
export LD_LIBRARY_PATH="$NCCL_HOME/lib:${LD_LIBRARY_PATH:-}"
csvs=() names=()
for c in $COLLECTIVES; do
  run "perf-$c" 120 "$OUT/nccl-tests-build/${c}_perf" -b 8 -e 1G -f 2 -g "$N" -w 5 -n "$ITERS" || continue
  grep -E '^# (nccl-tests|NCCL version|Using devices)|Avg bus bandwidth' "$OUT/perf-$c.txt" | head -4 | sed 's/^/    /' | tee -a "$SUMMARY"
  python3 "$here/nccl_tests_csv.py" "$OUT/perf-$c.txt" "${NAME[$c]}" "$N" "$ITERS" > "$OUT/nccl-tests-$c.csv" || continue
  csvs+=(--csv "$OUT/nccl-tests-$c.csv"); names+=("${NAME[$c]}")
done
[ ${#csvs[@]} -gt 0 ] || { note "nccl-tests: no table to compare"; exit 1; }
ops=$(IFS=,; echo "${names[*]}")
run harness 200 "$BUNDLE/bin/mpi2nccl" bandwidth -np "$N" --comms nccl -c "$ops" -b 8 -e 1G -f 2 -w 5 -n "$ITERS" --min-iters "$ITERS" \
    --out "$OUT/harness" --title "busbw, $N GPUs: the toolkit's harness" || exit 1
run compare 60 "$BUNDLE/bin/mpi2nccl" bandwidth-compare --csv "$OUT/harness/bandwidth.csv" "${csvs[@]}" \
    --out "$OUT/compare" --ratio nccl/nccl-tests --ratio-from 1M --title "busbw, $N GPUs: the harness and nccl-tests, one run"
sed 's/^/    /' "$OUT/compare/ratio.txt" 2>/dev/null | tee -a "$SUMMARY"
rm -rf "$OUT/nccl-tests-build"
note "done: $OUT"
