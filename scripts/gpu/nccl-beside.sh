#!/usr/bin/env bash
# Does an NCCL communicator slow down a CUDA graph of its process, and which NCCL setting makes it so?
# NcclBesideRank times the lesson CNN's forward graph replayed alone in one process: recorded before NCCL (before, with
# NCCL up, after an epoch over NCCL) and recorded with NCCL up. Each setting runs it on 2 GPUs (and on all of them
# with ALL=1), ROUNDS times, then its GPU test runs once. A setting is one line, `name: [VAR=value ...] [arg=value ...]`:
# upper-case words go to the ranks' environment, lower-case ones are NcclBesideRank's arguments (allreduces=N).
# Usage, from the repository root with the bundle unpacked (about 7 s a run):
#   BUNDLE=/tmp/bundle OUT=$OUT bash scripts/gpu/nccl-beside.sh
#   SETTINGS=$'default:\nno-cumem: NCCL_CUMEM_ENABLE=0\ninit-only: allreduces=0' ROUNDS=2 ALL=1 ... (the defaults)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/find-bundle.sh"
BUNDLE=$(find_bundle) || { echo "nccl-beside: no bundle (set BUNDLE=/path/to/bundle)"; exit 2; }
source "$here/cuda-common.sh"
header "nccl-beside"
N=$(gpu_count)
ROUNDS=${ROUNDS:-2}
SETTINGS=${SETTINGS:-default:}
[ "$N" -ge 2 ] || { note "nccl-beside: needs 2 GPUs, this machine has $N"; exit 2; }
counts=2; [ "${ALL:-0}" = 1 ] && [ "$N" -gt 2 ] && counts="2 $N"
for r in $(seq 1 "$ROUNDS"); do
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    name=${line%%:*} envs=() args=()
    for w in ${line#*:}; do
      if [[ $w =~ ^[A-Z_][A-Z0-9_]*= ]]; then envs+=("$w"); else args+=("$w"); fi
    done
    for n in $counts; do
      run "$name-$n-r$r" 180 env "${envs[@]}" "$BUNDLE/bin/mpi2nccl" mpjrun -np "$n" -dev niodev --timeout 150s \
          org.mpi2nccl.bench.gpu.NcclBesideRank "${args[@]}"
      # before / with NCCL up / recorded with NCCL up, per rank, on one line per run
      grep -h "replayed alone" "$OUT/$name-$n-r$r.txt" \
        | sed -E 's/.*rank ([0-9]+) on .*recorded before NCCL ([0-9.]+) before NCCL, ([0-9.]+) with.*recorded with NCCL up ([0-9.]+).*/r\1 \2 \3 \4/' \
        | sort | tr '\n' ' ' | sed "s/^/    $name $n GPUs round $r (rank before with recorded-with): /; s/\$/\n/" | tee -a "$SUMMARY"
    done
  done <<< "$SETTINGS"
done
run gpu-test 180 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu --select-class org.mpi2nccl.bench.gpu.NcclBesideRankGpuTest
junit_totals "$OUT/gpu-test.txt"
note "done: $OUT"
