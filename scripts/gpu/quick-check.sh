#!/usr/bin/env bash
# The whole project's GPU side in one short run (about 4 minutes on 2 GPUs), for a short time on a GPU machine:
#  1. junit     every JUnit test tagged "gpu": CUDA runtime and backend, CUDA vs CPU, the kernel's rank engines on
#               their GPUs, NCCL (bootstraps, collectives, split, groups, timeouts), data-parallel equivalence
#  2. nccl      the bandwidth harness, NCCL all-reduce 8 B .. 1 GiB on 2 ranks, beside torch.distributed in the same
#               run, with the nccl/torch busbw ratio; the MPI routes are left to bandwidth.sh
#  3. kernels   bench-gpu's bandwidth rows (target: >= 80% of copy), Java side only
# The longer scripts beside it (cuda-bench.sh, bandwidth.sh, data-parallel.sh) measure each part in full.
# Usage, from the repository root with the bundle unpacked: BUNDLE=/tmp/bundle OUT=/tmp/out bash scripts/gpu/quick-check.sh
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "quick-check"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"
torch_python
# one NCCL for both sides (torch's), as bandwidth.sh does
use_torch_nccl

JUNIT_REPORTS="$OUT/junit" run junit 240 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu
junit_totals "$OUT/junit.txt"
grep -E '^\s+=> ' "$OUT/junit.txt" | cut -c1-400 | sed 's/^/    FAILED: /' | tee -a "$SUMMARY"
grep -E 'MethodSource' "$OUT/junit.txt" | sed -E "s/.*className = '([^']*)', methodName = '([^']*)'.*/    failed test: \1.\2/" | tee -a "$SUMMARY"

if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
  run nccl 150 "$BUNDLE/bin/mpi2nccl" bandwidth -np 2 --comms nccl -b 8 -e 1G -f 2 -w 5 -n 20 --out "$OUT/nccl" \
      --title "allReduce busbw, 2 GPUs: NCCL"
  grep -E "init" "$OUT/nccl.txt" | head -4 | sed 's/^/    /' | tee -a "$SUMMARY"
  if "$PY" -c 'import torch' 2>/dev/null; then
    run torch 150 "$PY" "$(dirname "$0")/torch_allreduce.py" --min 8 --max 1G --csv "$OUT/torch_allreduce.csv"
    run compare 60 "$BUNDLE/bin/mpi2nccl" bandwidth-compare --csv "$OUT/nccl/bandwidth.csv" --csv "$OUT/torch_allreduce.csv" \
        --out "$OUT/compare" --ratio nccl/torch.distributed --ratio-from 1M --title "allReduce busbw, 2 GPUs, one run"
    sed 's/^/    /' "$OUT/compare/ratio.txt" 2>/dev/null | tee -a "$SUMMARY"
  else
    note "== torch: skipped (no python3 with torch)"
  fi
else
  note "== nccl: skipped (one GPU)"
fi

run kernels 200 "$BUNDLE/bin/mpi2nccl" bench-gpu --only bandwidth --json "$OUT/kernels.json"
grep -E 'GB/s' "$OUT/kernels.txt" | head -60 | cut -c1-200 | sed 's/^/    /' | tee -a "$SUMMARY"

if pgrep -af 'daemon.jar|org.mpi2nccl' | grep -v pgrep; then note "LEFTOVER PROCESSES (above)"; else note "no leftover processes"; fi
note "done: $OUT"
