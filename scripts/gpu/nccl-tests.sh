#!/usr/bin/env bash
# NVIDIA's nccl-tests beside the toolkit's bandwidth harness on this machine's GPUs, same NCCL (PyTorch's), same sizes:
#   1. build     nccl-tests' perf programs from a copy of its source outside the repository (an ignored folder:
#                fetch it, e.g. `git archive` of github.com/NVIDIA/nccl-tests into build/peers/nccl-tests, and
#                carry that folder), for this GPU's architecture only, without MPI (one process drives all GPUs);
#                skipped where NCCL_TESTS_BIN names a folder of perf programs already built (e.g. all_reduce_perf)
#   2. nccl-tests  each perf program, 8 B .. 1 GiB, -> its text table and the harness's CSV (nccl_tests_csv.py)
#   3. harness   `mpi2nccl bandwidth -np N --comms nccl` over the same collectives and sizes (one process per GPU)
#   4. compare   `mpi2nccl bandwidth-compare`: busbw harness / nccl-tests per size from 1 MiB
# With ROUNDS above 1, steps 2-4 run once per round into $OUT/rN/, odd rounds nccl-tests first, even rounds the
# harness first (a machine drifting over the run weighs on both alike); ROUNDS=1 writes straight into $OUT.
# Exit status 2: no nccl-tests here (no source, no NCCL headers to build it with) and nothing was run.
# Usage, from the repository root with the bundle unpacked (about 2-3 minutes on 2 GPUs, most of it the build):
#   BUNDLE=/tmp/bundle OUT=$OUT bash scripts/gpu/nccl-tests.sh
# Settings: COLLECTIVES="all_reduce" ITERS=20 ROUNDS=1 NCCL_TESTS_SRC=build/peers/nccl-tests NCCL_TESTS_BIN (prebuilt)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/cuda-common.sh"
header "nccl-tests"
torch_python
use_torch_nccl
N=$(gpu_count)
ITERS=${ITERS:-20}
ROUNDS=${ROUNDS:-1}
COLLECTIVES=${COLLECTIVES:-all_reduce}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
# the harness's name of each collective (its CSV and the comparison use them)
declare -A NAME=([all_reduce]=allReduce [all_gather]=allGather [reduce_scatter]=reduceScatter [broadcast]=broadcast)

if [ -n "${NCCL_TESTS_BIN:-}" ]; then
  BIN=$(cd "$NCCL_TESTS_BIN" 2>/dev/null && pwd) \
    || { note "nccl-tests: NCCL_TESTS_BIN=$NCCL_TESTS_BIN is no folder"; exit 2; }
  note "   $N GPU(s), sm_$cc; nccl-tests prebuilt in $BIN; NCCL_HOME=${NCCL_HOME:-unset}"
else
  SRC=$(cd "${NCCL_TESTS_SRC:-build/peers/nccl-tests}" 2>/dev/null && pwd) \
    || { note "nccl-tests: no source at ${NCCL_TESTS_SRC:-build/peers/nccl-tests} (see the usage above)"; exit 2; }
  [ -n "${NCCL_HOME:-}" ] && [ -e "$NCCL_HOME/include/nccl.h" ] \
    || { note "nccl-tests: no NCCL with headers (NCCL_HOME=${NCCL_HOME:-unset}); PyTorch's nvidia-nccl wheel has them"; exit 2; }
  note "   $N GPU(s), sm_$cc; nccl-tests $(cat "$SRC/COMMIT" 2>/dev/null || echo '(commit unknown)'); NCCL_HOME=$NCCL_HOME"
  BIN="$OUT/nccl-tests-build"
  run build 200 make -C "$SRC/src" -j "$(nproc)" MPI=0 CUDA_HOME="$CUDA_HOME" NCCL_HOME="$NCCL_HOME" \
      NVCC_GENCODE="-gencode=arch=compute_$cc,code=sm_$cc" BUILDDIR="$BIN" BIN_FILES_LIST="$COLLECTIVES" \
    || exit 1
fi
# the same NCCL as the harness (PyTorch's, use_torch_nccl) for a prebuilt program too
[ -n "${NCCL_HOME:-}" ] && export LD_LIBRARY_PATH="$NCCL_HOME/lib:${LD_LIBRARY_PATH:-}"

# The round's files go to $OUT/$pre ("" for one round, "rN/" for round N): run writes $OUT/NAME.txt.
# perf_programs: each collective's perf program, its table as the harness's CSV (csvs: their --csv options)
perf_programs() {
  local d=$OUT/$pre c
  csvs=()
  for c in $COLLECTIVES; do
    run "${pre}perf-$c" 120 "$BIN/${c}_perf" -b 8 -e 1G -f 2 -g "$N" -w 5 -n "$ITERS" || continue
    grep -E '^# (nccl-tests|NCCL version|Using devices)|Avg bus bandwidth' "$d/perf-$c.txt" | head -4 | sed 's/^/    /' | tee -a "$SUMMARY"
    python3 "$here/nccl_tests_csv.py" "$d/perf-$c.txt" "${NAME[$c]}" "$N" "$ITERS" > "$d/nccl-tests-$c.csv" || continue
    csvs+=(--csv "$d/nccl-tests-$c.csv")
  done
}
harness() {
  local ops
  ops=$(for c in $COLLECTIVES; do printf '%s,' "${NAME[$c]}"; done)
  run "${pre}harness" 200 "$BUNDLE/bin/mpi2nccl" bandwidth -np "$N" --comms nccl -c "${ops%,}" -b 8 -e 1G -f 2 -w 5 \
      -n "$ITERS" --min-iters "$ITERS" --out "$OUT/${pre}harness" --title "busbw, $N GPUs: the toolkit's harness"
}
failed=0
for r in $(seq 1 "$ROUNDS"); do
  pre=""; [ "$ROUNDS" -gt 1 ] && pre="r$r/"
  d=$OUT/$pre
  mkdir -p "$d"
  if [ $((r % 2)) = 1 ]; then perf_programs; harness || failed=1; else harness || failed=1; perf_programs; fi
  if [ ${#csvs[@]} = 0 ]; then note "nccl-tests: no table to compare in round $r"; failed=1; continue; fi
  [ -s "${d}harness/bandwidth.csv" ] || continue
  run "${pre}compare" 60 "$BUNDLE/bin/mpi2nccl" bandwidth-compare --csv "${d}harness/bandwidth.csv" "${csvs[@]}" \
      --out "${d}compare" --ratio nccl/nccl-tests --ratio-from 1M --title "busbw, $N GPUs: the harness and nccl-tests, one run"
  sed 's/^/    /' "${d}compare/ratio.txt" 2>/dev/null | tee -a "$SUMMARY"
done
[ -z "${NCCL_TESTS_BIN:-}" ] && rm -rf "$BIN"
note "done: $OUT"
exit $failed
