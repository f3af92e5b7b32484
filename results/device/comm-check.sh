#!/usr/bin/env bash
# Issue 6 on the 2-GPU machine, in one run (about 6-8 minutes: give it STEP_TIMEOUT=600 under gpu-suite.sh,
# or run it alone from the repository root: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/comm-check.sh).
#  1. the NCCL JUnit tests (tag gpu): init via the MPJ broadcast of the unique id, tcp:// and file://; every
#     collective's results; split; send/recv; several GPUs in one process (ncclCommInitAll + group calls);
#     mismatched calls; a skipped collective aborted by the timeout (ncclCommAbort) and named; NCCL_* passed on;
#  2. the bandwidth harness, 2 ranks, allReduce float32 sum, 8 B .. 1 GiB: nccl (as nccl-tests/PyTorch run it),
#     nccl-checked (the toolkit's defaults: waited for, metadata check), mpj-staged (the MPI route: D2H, MPJ
#     Allreduce, H2D), ring-staged (the hand-written ring, same staging);
#  3. torch.distributed all_reduce on the same GPUs in the same run (results/device/torch_allreduce.py);
#  4. bandwidth-compare: one plot of all of them, and the busbw ratio nccl / torch at 1 MiB .. 1 GiB.
# Files under $OUT: summary.txt, *.txt logs, junit/, nccl/ mpi/ (bandwidth.csv, busbw.png), torch_allreduce.csv,
# compare/ (all.csv, busbw-in-place.png, busbw-out-of-place.png, ratio.txt).
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
header "comm-check"
nvidia-smi topo -m 2>&1 | head -4 | tee -a "$SUMMARY"

# 1. NCCL tests
JUNIT_REPORTS="$OUT/junit" run nccl-junit 300 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu \
  --include-classname 'org\.mpi2nccl\.comm\.nccl\.NcclGpuTest'
junit_totals "$OUT/nccl-junit.txt"
grep -E "NCCL INIT rank" "$OUT/nccl-junit.txt" | sed 's/^/    /' | head -6 | tee -a "$SUMMARY"

# 2. bandwidth: NCCL both ways (fast), then the host-staged routes (slow: fewer calls per size)
run bandwidth-nccl 300 "$BUNDLE/bin/mpi2nccl" bandwidth -np 2 --comms nccl,nccl-checked -b 8 -e 1G -f 2 -w 5 -n 20 \
  --out "$OUT/nccl" --title "allReduce busbw, 2 GPUs: NCCL"
run bandwidth-mpi 420 "$BUNDLE/bin/mpi2nccl" bandwidth -np 2 --comms mpj-staged,ring-staged -b 8 -e 1G -f 2 \
  --max-host 1G -w 1 -n 5 --min-iters 1 --seconds-per-size 2 \
  --out "$OUT/mpi" --title "allReduce busbw, 2 GPUs: host-staged MPI routes"
grep -E "^ +(1048576|16777216|67108864|268435456|1073741824) " "$OUT/bandwidth-nccl.txt" "$OUT/bandwidth-mpi.txt" \
  | sed 's/^/    /' | tee -a "$SUMMARY"

# 3. torch.distributed in the same run
PY=${PYTHON:-python3}
if ! "$PY" -c 'import torch' 2>/dev/null; then
  for p in /opt/torch/.venv/bin/python3 /opt/*/.venv/bin/python3; do "$p" -c 'import torch' 2>/dev/null && { PY=$p; break; }; done
fi
if "$PY" -c 'import torch' 2>/dev/null; then
  run torch-allreduce 240 "$PY" "$(dirname "$0")/torch_allreduce.py" --min 8 --max 1G --csv "$OUT/torch_allreduce.csv"
  grep -E "init" "$OUT/torch-allreduce.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
else
  note "== torch-allreduce: skipped (no python3 with torch; set PYTHON=/path/to/python)"
fi

# 4. all on one plot; NCCL vs torch ratio (in place: torch's all_reduce is in place)
csvs=()
for f in "$OUT/nccl/bandwidth.csv" "$OUT/mpi/bandwidth.csv" "$OUT/torch_allreduce.csv"; do [ -s "$f" ] && csvs+=(--csv "$f"); done
run bandwidth-compare 120 "$BUNDLE/bin/mpi2nccl" bandwidth-compare "${csvs[@]}" --out "$OUT/compare" \
  --ratio nccl/torch.distributed --ratio-from 1M --title "allReduce busbw, 2 GPUs, one run"
sed 's/^/    /' "$OUT/compare/ratio.txt" 2>/dev/null | tee -a "$SUMMARY"

if pgrep -af 'daemon.jar|org.mpi2nccl' ; then note "LEFTOVER PROCESSES"; fi
note "done: $OUT"
