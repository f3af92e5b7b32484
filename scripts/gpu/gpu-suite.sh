#!/usr/bin/env bash
# Runs the project's GPU checks on a GPU machine, in one call:
#   tar xJf build/mpi2nccl-bundle.tar.xz -C /tmp && bash scripts/gpu/gpu-suite.sh [STEP...]
# Each step is scripts/gpu/STEP.sh, run with BUNDLE=/tmp/bundle and its own OUT folder; its files come
# back as $OUT/STEP.tgz (one file to copy back) and its log as $OUT/STEP.log.
# Steps default to $DEFAULT_STEPS below; a step's time limit is STEP_TIMEOUT seconds (default 240).
set -uo pipefail
export BUNDLE=${BUNDLE:-/tmp/bundle}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
FINAL_OUT=${OUT:-/tmp/out}; mkdir -p "$FINAL_OUT"
here=$(cd "$(dirname "$0")" && pwd)
steps=("$@")
DEFAULT_STEPS="quick-check cuda-backend cuda-bench cuda-sanitizer bandwidth data-parallel"
[ ${#steps[@]} -gt 0 ] || steps=($DEFAULT_STEPS)
{
  echo "== machine"; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "== bundle"; "$BUNDLE/runtime/bin/java" -version 2>&1 | head -1
} 2>&1 | tee "$FINAL_OUT/machine.txt"
for s in "${steps[@]}"; do
  step_out=/tmp/out-steps/$s; rm -rf "$step_out"; mkdir -p "$step_out"
  echo "== $s (limit ${STEP_TIMEOUT:-240}s)"
  start=$(date +%s)
  OUT=$step_out timeout -k 10 "${STEP_TIMEOUT:-240}" bash "$here/$s.sh" > "$FINAL_OUT/$s.log" 2>&1
  rc=$?
  echo "   rc=$rc in $(( $(date +%s) - start ))s; last lines:"; tail -n 15 "$FINAL_OUT/$s.log" | sed 's/^/   /'
  (cd "$step_out" && [ -n "$(ls -A)" ] && tar czf "$FINAL_OUT/$s.tgz" .)
  # no process of a step outlives it
  pkill -f 'bin/java .*(org\.mpi2nccl|daemon\.jar)' 2>/dev/null || true
done
