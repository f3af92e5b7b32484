#!/usr/bin/env bash
# Every wait on the GPU path bounded: the 2-GPU job that an NCCL setting once stopped for good
# (NCCL_P2P_USE_CUDA_MEMCPY=1), run as a user would, timed, with and without the setting. A run still going after
# 45 s gets a thread dump of both rank JVMs (what they wait in) before the job's own limit ends it.
# Usage, from the repository root with the bundle unpacked: BUNDLE=/tmp/bundle OUT=/tmp/out bash scripts/gpu/gpu-waits.sh
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "gpu-waits"
if [ "$(gpu_count)" -lt 2 ]; then note "== skipped: needs 2 GPUs, this machine has $(gpu_count)"; exit 0; fi

# dump_after SECONDS NAME: SIGQUIT (a thread dump into the rank's output) to every rank JVM still running then
dump_after() {
  sleep "$1"
  local pids
  pids=$(pgrep -f 'NiodevBoot' || true)
  [ -n "$pids" ] && { note "   $2 still running after $1 s: thread dumps of $pids"; kill -QUIT $pids; }
}

for setting in default memcpy; do
  env_args=()
  [ "$setting" = memcpy ] && env_args=(env NCCL_P2P_USE_CUDA_MEMCPY=1)
  dump_after 45 "$setting" & dumper=$!
  run "beside-$setting" 120 "${env_args[@]}" "$BUNDLE/bin/mpi2nccl" mpjrun -np 2 -dev niodev --timeout 65s \
      org.mpi2nccl.bench.gpu.NcclBesideRank allreduces=200
  kill "$dumper" 2>/dev/null; wait "$dumper" 2>/dev/null
  grep -E 'rank [01]|did not finish|timed out|ncclCommAbort|failed' "$OUT/beside-$setting.txt" | grep -v '^\s*at ' \
      | head -12 | cut -c1-300 | sed 's/^/    /' | tee -a "$SUMMARY"
done
if pgrep -af 'daemon.jar|org.mpi2nccl' | grep -v pgrep; then note "LEFTOVER PROCESSES (above)"; else note "no leftover processes"; fi
note "done: $OUT"
