#!/usr/bin/env bash
# Where the multi-GPU step's extra time goes under each of the speedup experiment's step settings, on all the GPUs of
# this machine (the 1-GPU run beside each): a sweep to choose the defaults by, not a result the lessons read. One
# `mpi2nccl run --routes nccl` per setting (CIFAR-shaped set, needs no data), the default first and last (the
# difference between them is the run's own noise); the per-step lines ("+X us = forward ...") of every setting in
# $OUT/settings.txt. Everything lands in $OUT/step-settings.tgz, with $OUT/summary.txt beside it.
# busbw with more calls per size is multi-gpu.sh's part, e.g. PARTS=bw BW_MIN=1M BW_MAX=64M BW_ITERS=100 BW_MIN_ITERS=100.
# Usage, from the repository root on the GPU machine (the bundle as multi-gpu.sh finds it):
#   OUT=$OUT bash scripts/gpu/step-settings.sh
# Settings (environment): TIME_LIMIT=360  EPOCHS=6  EXAMPLES=50000  BATCH=128 (per rank)  RANKS (default 1,2,N)
#   SETTINGS: one setting a line, "name: [VAR=value ...] options of mpi2nccl run" (default: the list below); the
#   VAR=value words lead and go to the run's environment, which the rank JVMs inherit (NCCL reads its settings there)
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
T0=$SECONDS
TIME_LIMIT=${TIME_LIMIT:-360}
FINAL_OUT=${OUT:-/tmp/out}
WORK=${WORK:-/tmp/step-settings}
source "$here/find-bundle.sh"
BUNDLE=$(find_bundle) || { echo "step-settings: no bundle (set BUNDLE=/path/to/bundle, or carry build/mpi2nccl-bundle.tar.xz)"; exit 2; }
export BUNDLE
rm -rf "$WORK"; mkdir -p "$WORK" "$FINAL_OUT"
OUT=$WORK
source "$here/cuda-common.sh"     # gpu_count
TAR=step-settings.tgz
RESERVE=10
source "$here/time-limit.sh"          # note, left, step, pack (on exit)

N=$(gpu_count)
[ "${N:-0}" -ge 2 ] 2>/dev/null || { note "step-settings: $N GPU(s) here; the sweep needs 2 or more"; exit 2; }
RANKS=${RANKS:-$( [ "$N" -gt 2 ] && echo "1,2,$N" || echo "1,2")}
EPOCHS=${EPOCHS:-6}
EXAMPLES=${EXAMPLES:-50000}
BATCH=${BATCH:-128}
SETTINGS=${SETTINGS:-"default:
no-overlap: --no-overlap
ctas-nccl: --overlap-ctas 0
ctas-8: --overlap-ctas 8
last-4k: --last-bucket-kib 4
bucket-256k: --bucket-kib 256
host-collectives: --no-graph-collectives
default-again:"}
{ echo "gpus=$N"; echo "commit=$(cat "$BUNDLE/COMMIT" 2>/dev/null)"; echo "date=$(date -u +%FT%TZ)"
  echo "gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  echo "command=$(env | grep -E '^(TIME_LIMIT|RANKS|EPOCHS|EXAMPLES|BATCH)=' | sort | tr '\n' ' ')bash scripts/gpu/step-settings.sh"
} > "$WORK/machine.txt"
note "step-settings $(date -u +%FT%TZ): $N x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); bundle $(cat "$BUNDLE/COMMIT" 2>/dev/null || echo '?'); ranks $RANKS; time limit $TIME_LIMIT s"

mkdir -p "$WORK/settings"
while IFS= read -r line; do
  [ -n "$line" ] || continue
  name=${line%%:*}; opts=${line#*:}
  envs=()
  read -ra words <<< "$opts"
  while [ ${#words[@]} -gt 0 ] && [[ ${words[0]} =~ ^[A-Z_][A-Z0-9_]*= ]]; do envs+=("${words[0]}"); words=("${words[@]:1}"); done
  step "settings/$name" 90 env "${envs[@]}" "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks "$RANKS" \
      --batch-per-rank "$BATCH" --data synthetic-cifar --train-examples "$EXAMPLES" --test-examples 2000 --epochs "$EPOCHS" \
      --out "$WORK/settings/$name" "${words[@]}" || continue
  { echo "== $name:${opts:- (the defaults)}"
    sed -n '/^per step, against/,/^report:/p' "$WORK/settings/$name.txt" | grep -vE '^(per step|report:)'
  } | tee -a "$WORK/settings.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
done <<< "$SETTINGS"
note "done in $((SECONDS - T0)) s"
