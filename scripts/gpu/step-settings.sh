#!/usr/bin/env bash
# Where the multi-GPU step's extra time goes under each of the speedup experiment's step settings, on all the GPUs of
# this machine (the 1-GPU run beside each), and busbw beside torch.distributed with more calls per size than the
# multi-GPU run takes: a sweep to choose the defaults by, not a result the lessons read.
#   settings  one `mpi2nccl run --routes nccl` per setting (CIFAR-shaped set, needs no data), the default first and
#             last (the difference between them is the run's own noise); the per-step lines ("+X us = forward ...")
#             of every setting in $OUT/settings.txt
#   bw        allReduce, allGather, reduceScatter, broadcast on N GPUs from BW_MIN to BW_MAX, BW_ITERS calls per
#             size, BW_ROUNDS rounds alternating with torch_allreduce.py; CSVs under bw/
# Everything lands in $OUT/step-settings.tgz, with $OUT/summary.txt beside it.
# Usage, from the repository root on the GPU machine (the bundle as multi-gpu.sh finds it):
#   OUT=$OUT bash scripts/gpu/step-settings.sh
# Settings (environment): PARTS="settings bw"  BUDGET=360  EPOCHS=6  EXAMPLES=50000  RANKS (default 1,2,N)
#   SETTINGS: one setting a line, "name: options of mpi2nccl run" (default: the list below)
#   BW_MIN=1M BW_MAX=64M BW_ITERS=100 BW_ROUNDS=2 BW_COLLECTIVES=allReduce,allGather,reduceScatter,broadcast
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
T0=$SECONDS
BUDGET=${BUDGET:-360}
FINAL_OUT=${OUT:-/tmp/out}
WORK=${WORK:-/tmp/step-settings}
PARTS=${PARTS:-settings bw}
source "$here/find-bundle.sh"
BUNDLE=$(find_bundle) || { echo "step-settings: no bundle (set BUNDLE=/path/to/bundle, or carry build/mpi2nccl-bundle.tar.xz)"; exit 2; }
export BUNDLE
rm -rf "$WORK"; mkdir -p "$WORK" "$FINAL_OUT"
OUT=$WORK
source "$here/cuda-common.sh"     # gpu_count, torch_python, use_torch_nccl
TAR=step-settings.tgz
RESERVE=10
source "$here/budget.sh"          # note, left, step, pack (on exit)

N=$(gpu_count)
[ "${N:-0}" -ge 2 ] 2>/dev/null || { note "step-settings: $N GPU(s) here; the sweep needs 2 or more"; exit 2; }
RANKS=${RANKS:-$( [ "$N" -gt 2 ] && echo "1,2,$N" || echo "1,2")}
EPOCHS=${EPOCHS:-6}
EXAMPLES=${EXAMPLES:-50000}
SETTINGS=${SETTINGS:-"default:
no-overlap: --no-overlap
ctas-nccl: --overlap-ctas 0
ctas-8: --overlap-ctas 8
last-4k: --last-bucket-kib 4
bucket-256k: --bucket-kib 256
host-collectives: --no-graph-collectives
default-again:"}
torch_python
use_torch_nccl
{ echo "gpus=$N"; echo "bw_counts=$N"; echo "bw_rounds=${BW_ROUNDS:-2}"; echo "commit=$(cat "$BUNDLE/COMMIT" 2>/dev/null)"
  echo "date=$(date -u +%FT%TZ)"; echo "gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  echo "command=$(env | grep -E '^(PARTS|BUDGET|RANKS|EPOCHS|EXAMPLES|BW_[A-Z]+)=' | sort | tr '\n' ' ')bash scripts/gpu/step-settings.sh"
} > "$WORK/machine.txt"
note "step-settings $(date -u +%FT%TZ): $N x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); bundle $(cat "$BUNDLE/COMMIT" 2>/dev/null || echo '?'); ranks $RANKS; budget $BUDGET s"

part_settings() {
  local line name opts
  mkdir -p "$WORK/settings"
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    name=${line%%:*}; opts=${line#*:}
    # shellcheck disable=SC2086   # opts: the setting's options, split on spaces
    step "settings/$name" 90 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks "$RANKS" --batch-per-rank 128 \
        --data synthetic-cifar --train-examples "$EXAMPLES" --test-examples 2000 --epochs "$EPOCHS" \
        --out "$WORK/settings/$name" $opts || continue
    { echo "== $name:${opts:- (the defaults)}"
      sed -n '/^per step, against/,/^report:/p' "$WORK/settings/$name.txt" | grep -vE '^(per step|report:)'
    } | tee -a "$WORK/settings.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
  done <<< "$SETTINGS"
}

part_bw() {
  local r c=${BW_COLLECTIVES:-allReduce,allGather,reduceScatter,broadcast} iters=${BW_ITERS:-100}
  for r in $(seq 1 "${BW_ROUNDS:-2}"); do
    mkdir -p "$WORK/bw/n$N/r$r"
    ours() { step "bw/n$N-nccl-r$r" 120 "$BUNDLE/bin/mpi2nccl" bandwidth -np "$N" --comms nccl -c "$c" -b "${BW_MIN:-1M}" \
        -e "${BW_MAX:-64M}" -f 2 -w 10 -n "$iters" --min-iters "$iters" --out "$WORK/bw/n$N/r$r/nccl" --title "busbw, $N GPUs"; }
    theirs() { step "bw/n$N-torch-r$r" 120 "$PY" "$here/torch_allreduce.py" --ranks "$N" --collectives "$c" \
        --min "${BW_MIN:-1M}" --max "${BW_MAX:-64M}" --warmup 10 --iters "$iters" --csv "$WORK/bw/n$N/r$r/torch.csv"; }
    if [ $((r % 2)) = 1 ]; then ours; theirs; else theirs; ours; fi
  done
}

for p in $PARTS; do
  case $p in
    settings) part_settings ;;
    bw) part_bw ;;
    *) note "unknown part '$p' (settings, bw)" ;;
  esac
done
if [ -d "$WORK/bw" ] && "$BUNDLE/bin/mpi2nccl" scaling-report --help > /dev/null 2>&1; then
  RESERVE=3 step scaling-report 40 "$BUNDLE/bin/mpi2nccl" scaling-report "$WORK" --out "$WORK/report" --no-charts
  sed -n '/^== busbw/,$p' "$WORK/scaling-report.txt" | cut -c1-160 | sed 's/^/   /' | tee -a "$SUMMARY"
fi
note "done in $((SECONDS - T0)) s"
