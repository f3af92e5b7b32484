#!/usr/bin/env bash
# One GPU, the lesson CNN's training step from batch 128 to 8192: the toolkit's step eager and replayed from a CUDA
# graph (bench-gpu --only train) beside PyTorch eager, a whole-step CUDA graph and torch.compile (torch_peer.py), in
# alternating rounds (odd rounds the toolkit first, even rounds PyTorch first). Then, where time is left, where a step's
# GPU time goes at the largest batch: the toolkit's kernels under Nsight Compute (ncu), PyTorch's under torch.profiler.
# Everything lands in $OUT/train-sweep.tgz with $OUT/summary.txt beside it; unpack the tar and run
#   mpi2nccl train-sweep-report DIR --out results/TOPIC
# for the table of medians and ratios, the CSV and the chart (the GPU machine may lack fonts for the chart).
#
# First, with TESTS=1 (the default), the tests that launch every kernel the backend uses: a sweep of wrong kernels
# would be no figure at all. With UNFUSED=1 every round also times the toolkit with Sequential's fused blocks off
# (MPI2NCCL_FUSED_BLOCKS=0: batch norm, ReLU and pooling as three layers), a column of its own in the report.
#
# Usage, from the repository root on the GPU machine (the bundle as scripts/gpu/find-bundle.sh finds it):
#   OUT=$OUT bash scripts/gpu/train-sweep.sh
# Settings: BATCHES=128,512,2048,8192  ROUNDS=3  WARMUP=1.5 (seconds of untimed steps per batch and mode)  TESTS=1
#   UNFUSED=0
#   TORCH_MODES=eager,cuda-graph,compile (torch_peer.py also has cudnn-benchmark and channels-last-graph)  PROFILE=1 (0: no kernel breakdown; with ROUNDS=0 the breakdown alone)
#   TIME_LIMIT=540 (seconds for the whole run: a step that would start with too little left is skipped, saying so)
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
T0=$SECONDS
BATCHES=${BATCHES:-128,512,2048,8192}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-1.5}
TORCH_MODES=${TORCH_MODES:-eager,cuda-graph,compile}
PROFILE=${PROFILE:-1}
TESTS=${TESTS:-1}
UNFUSED=${UNFUSED:-0}
TIME_LIMIT=${TIME_LIMIT:-540}
FINAL_OUT=${OUT:-/tmp/out}
WORK=${WORK:-/tmp/train-sweep}
# shellcheck source=find-bundle.sh
source "$here/find-bundle.sh"
BUNDLE=$(find_bundle) || { echo "train-sweep: no bundle (set BUNDLE=/path/to/bundle, or carry build/mpi2nccl-bundle.tar.xz)"; exit 2; }
export BUNDLE
rm -rf "$WORK"; mkdir -p "$WORK" "$FINAL_OUT"
OUT=$WORK
# shellcheck source=cuda-common.sh
source "$here/cuda-common.sh"     # header, torch_python
TAR=train-sweep.tgz
RESERVE=10
# shellcheck source=time-limit.sh
source "$here/time-limit.sh"          # note, left, step, pack (on exit)

header "train-sweep"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader > "$WORK/machine.txt" 2>&1
note "GPU: $(head -1 "$WORK/machine.txt"); batches $BATCHES; torch modes $TORCH_MODES; $ROUNDS rounds; time limit $TIME_LIMIT s"
torch_python
toolkit() {
  step "round-$1/toolkit" 180 "$BUNDLE/bin/mpi2nccl" bench-gpu --only train --batch "$BATCHES" --train-warmup "$WARMUP" \
      --json "$WORK/round-$1/toolkit.json"
  [ "$UNFUSED" = 1 ] || return 0
  MPI2NCCL_FUSED_BLOCKS=0 step "round-$1/toolkit-unfused" 180 "$BUNDLE/bin/mpi2nccl" bench-gpu --only train \
      --batch "$BATCHES" --train-warmup "$WARMUP" --json "$WORK/round-$1/toolkit-unfused.json"
}
if [ "$TESTS" = 1 ]; then
  JUNIT_REPORTS="$WORK/junit" step kernel-tests 240 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors \
      --include-classname "$KERNEL_TESTS|org\.mpi2nccl\.nn\.FusedBlocksGpuTest"
  junit_totals "$WORK/kernel-tests.txt"
fi
peer() {
  step "round-$1/torch" 300 "$PY" "$here/torch_peer.py" --only train --batch "$BATCHES" --train-modes "$TORCH_MODES" \
      --train-warmup "$WARMUP" --json "$WORK/round-$1/torch.json"
}
largest=${BATCHES##*,}
# Where a step's GPU time goes at the largest batch: the toolkit's kernels under Nsight Compute (only the bracketed
# steps are profiled; clocks and caches as in a normal run; one metric, so one pass per kernel), PyTorch's eager and
# compiled steps under torch.profiler.
profile() {
  local ncu
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  mkdir -p "$WORK/profile"
  if [ -n "$ncu" ]; then
    step profile/toolkit-ncu 120 "$ncu" --profile-from-start off --clock-control none --cache-control none \
        --metrics gpu__time_duration.sum --csv --log-file "$WORK/profile/toolkit-ncu.csv" \
        "$BUNDLE/bin/mpi2nccl" bench-gpu --only train --batch "$largest" --train-warmup 0 --profiled-steps 2 \
      && "$PY" "$here/kernel_times.py" "$WORK/profile/toolkit-ncu.csv" 2 > "$WORK/profile/toolkit-kernels.txt" 2>&1
  else
    note "== profile/toolkit-ncu: SKIPPED (no ncu on this machine)"
  fi
  step profile/torch-kernels 120 "$PY" "$here/torch_peer.py" --only train --batch "$largest" --train-modes eager,compile \
      --train-warmup 1 --profile-steps 2
}
# ROUNDS=0 PROFILE=1: the breakdown alone
[ "$ROUNDS" = 0 ] && [ "$PROFILE" = 1 ] && profile
for r in $(seq 1 "$ROUNDS"); do
  mkdir -p "$WORK/round-$r"
  if [ $((r % 2)) = 1 ]; then toolkit "$r"; peer "$r"; else peer "$r"; toolkit "$r"; fi
  # one round of figures first, then where the time goes, then the other rounds
  [ "$r" = 1 ] && [ "$PROFILE" = 1 ] && profile
done
note "== report"
[ "$ROUNDS" -gt 0 ] && "$BUNDLE/bin/mpi2nccl" train-sweep-report "$WORK" --out "$WORK/report" 2>&1 | tee -a "$SUMMARY"
