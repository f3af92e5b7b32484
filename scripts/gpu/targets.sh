#!/usr/bin/env bash
# The GPU targets in one call: every figure beside its anchor from the same run, in rounds that alternate which side
# goes first, then one table (targets.md) with each row's figure, anchor, target and verdict. The parts run the
# scripts beside this one, each in its own folder of the run:
#   dp    multi-gpu.sh PARTS=dp on the CIFAR-shaped set, 3 epochs, NCCL route, 1 and 2 GPUs (and 4 where the machine
#         has 4 or more): the toolkit's data-parallel speedup beside PyTorch DDP's (ddp_peer.py), paired rounds
#         (target: 1.90x on 2 GPUs, 3.80x on 4)
#   step  train-sweep.sh, one GPU, batch 128/512/2048/8192: the toolkit's step eager and graphed beside PyTorch eager,
#         cudnn.benchmark, a whole-step CUDA graph, channels-last + cudnn.benchmark + CUDA graph and torch.compile
#         (torch_peer.py), after the kernel tests (target: graphed <= 6.7 ms at 8192 and >= 1.3x PyTorch's fastest mode
#         at every batch)
#   bw    nccl-tests.sh on 2 GPUs: all-reduce busbw of the toolkit's harness beside nccl-tests' all_reduce_perf
#         (NCCL_TESTS_BIN, all_reduce_perf on the PATH, or its source carried in build/peers/nccl-tests and built
#         here); where nccl-tests cannot run, multi-gpu.sh PARTS=bw beside torch.distributed (target: >= 1.00x at
#         every size from 1 MiB)
# Everything lands in $OUT/gpu-targets.tgz, with $OUT/targets.md and $OUT/summary.txt beside it. The table again,
# or from several calls' tars unpacked side by side (PARTS split over calls):
#   python3 scripts/gpu/targets_report.py RUN [RUN ...] --out targets.md
#
# Usage, from the repository root on the GPU machine (the bundle as scripts/gpu/find-bundle.sh finds it):
#   OUT=$OUT bash scripts/gpu/targets.sh                      # all parts, about 8 minutes on 2 GPUs
#   PARTS=dp OUT=$OUT bash scripts/gpu/targets.sh             # on 4 or more GPUs: dp alone (1, 2 and 4 GPUs),
#   PARTS="step bw" OUT=$OUT bash scripts/gpu/targets.sh      # then the rest in a second call
# Settings: PARTS="dp step bw"  TIME_LIMIT=540 (seconds for the whole call)  ROUNDS=2 (every part's rounds unless
#   DP_ROUNDS, STEP_ROUNDS or BW_ROUNDS says otherwise; dp takes 2 at least)  DP_GPUS (4 where there are 4 or more,
#   else 2)  STEP_WARMUP=1.0 (seconds of untimed steps per batch and mode)  STEP_TESTS=1 (the kernel tests first)
#   STEP_MODES=eager,cudnn-benchmark,cuda-graph,channels-last-graph,compile  BW_ITERS=20  GPUS (use fewer GPUs)
# Expected seconds per part on 2x H200, from the recorded runs' step times (results/data-parallel-2gpu,
# results/gpu-scaling, results/train-step-1gpu, results/gpu-scaling/nccl-tests): dp ~160 (~230 with 4 GPUs),
# step ~210 (a cold torch.compile takes most of the first PyTorch round), bw ~110 with the nccl-tests build
# (~90 beside torch.distributed). Each part is given the time left less what the parts after it are expected to take,
# and at least its own expected time.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
T0=$SECONDS
PARTS=${PARTS:-dp step bw}
TIME_LIMIT=${TIME_LIMIT:-540}
ROUNDS=${ROUNDS:-2}
DP_ROUNDS=${DP_ROUNDS:-$ROUNDS}
STEP_ROUNDS=${STEP_ROUNDS:-$ROUNDS}
BW_ROUNDS=${BW_ROUNDS:-$ROUNDS}
STEP_WARMUP=${STEP_WARMUP:-1.0}
STEP_TESTS=${STEP_TESTS:-1}
STEP_MODES=${STEP_MODES:-eager,cudnn-benchmark,cuda-graph,channels-last-graph,compile}
BW_ITERS=${BW_ITERS:-20}
FINAL_OUT=${OUT:-/tmp/out}
WORK=${WORK:-/tmp/gpu-targets}
# the parts' own packing (their tar and summary copy) goes here, outside the run: their files are in $WORK already
SCRATCH=${TMPDIR:-/tmp}/gpu-targets-parts
# shellcheck source=find-bundle.sh
source "$here/find-bundle.sh"
BUNDLE=$(find_bundle) || { echo "targets: no bundle (set BUNDLE=/path/to/bundle, or carry build/mpi2nccl-bundle.tar.xz)"; exit 2; }
export BUNDLE
rm -rf "$WORK" "$SCRATCH"; mkdir -p "$WORK" "$SCRATCH" "$FINAL_OUT"
OUT=$WORK
# shellcheck source=cuda-common.sh
source "$here/cuda-common.sh"     # gpu_count, torch_python, use_torch_nccl
TAR=gpu-targets.tgz
RESERVE=10
# shellcheck source=time-limit.sh
source "$here/time-limit.sh"      # note, left, step, pack (on exit)

N=$(gpu_count)
[ "${N:-0}" -ge 1 ] 2>/dev/null || { note "targets: no GPU here (nvidia-smi: ${N:-none})"; exit 2; }
DP_GPUS=${DP_GPUS:-$([ "$N" -ge 4 ] && echo 4 || echo 2)}
if [ "$DP_ROUNDS" -lt 2 ]; then note "dp: DP_ROUNDS=$DP_ROUNDS raised to 2 (the target is the median of paired rounds)"; DP_ROUNDS=2; fi
torch_python
use_torch_nccl
versions=$("$PY" -c 'import torch; print(torch.__version__, "(CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version(), "NCCL", ".".join(map(str, torch.cuda.nccl.version())) + ")")' 2>/dev/null)
{ echo "gpus=$N"; echo "dp_gpus=$DP_GPUS"; echo "parts=$PARTS"; echo "date=$(date -u +%FT%TZ)"; echo "host=$(hostname)"
  echo "gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  echo "driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)"
  echo "torch=${versions:-none (no Python with torch: the PyTorch anchors are skipped)}"
  echo "commit=$(cat "$BUNDLE/COMMIT" 2>/dev/null || echo '? (no COMMIT file)')"
  echo "repository=$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "command=$(env | grep -E '^(PARTS|TIME_LIMIT|GPUS|ROUNDS|DP_[A-Z]+|STEP_[A-Z]+|BW_[A-Z]+|NCCL_TESTS_[A-Z]+)=' | sort \
      | sed -E 's/^([A-Z_]+)=(.* .*)$/\1="\2"/' | tr '\n' ' ')bash scripts/gpu/targets.sh"
} > "$WORK/machine.txt"
note "targets $(date -u +%FT%TZ) on $(hostname): $N GPU(s); parts: $PARTS; time limit $TIME_LIMIT s"
note "bundle $BUNDLE, built from $(cat "$BUNDLE/COMMIT" 2>/dev/null || echo '? (no COMMIT file)'); PyTorch ${versions:-not found}"
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"
nvidia-smi > "$WORK/nvidia-smi.txt" 2>&1
nvidia-smi topo -m > "$WORK/topology.txt" 2>&1

# expected seconds of each part (see the usage): what a part leaves to the parts after it
expected() {
  case $1 in
    dp) [ "$DP_GPUS" -ge 4 ] && echo 230 || echo 160 ;;
    step) echo 210 ;;
    bw) echo 110 ;;
    *) echo 0 ;;
  esac
}
# cap PART: the seconds PART may take: the time left less what the parts after it in PARTS are expected to take, but
# never less than PART's own expected time (one whole row rather than two cut short), and never more than is left
cap() {
  local later=0 seen=0 p avail
  for p in $PARTS; do
    [ "$seen" = 1 ] && later=$((later + $(expected "$p")))
    [ "$p" = "$1" ] && seen=1
  done
  avail=$(( $(left) - RESERVE - 15 ))
  local c=$((avail - later))
  [ "$c" -lt "$(expected "$1")" ] && c=$(expected "$1")
  [ "$c" -gt "$avail" ] && c=$avail
  echo "$c"
}

part_dp() {
  local c
  [ "$N" -ge 2 ] || { note "== dp: not run: $N GPU"; return 0; }
  c=$(cap dp)
  note "dp: CIFAR-shaped set, 3 epochs, $DP_ROUNDS rounds, GPUs 1..$DP_GPUS, NCCL beside DDP (expected $(expected dp) s, given $c s)"
  # every setting of multi-gpu.sh the figure depends on is named here, so that none leaks in from the caller's environment
  step dp $((c + 10)) env GPUS="$DP_GPUS" PARTS=dp DP_SETS=cifar CIFAR_EPOCHS=3 ROUNDS="$DP_ROUNDS" DP_ROUTES=nccl \
      DDP_LOADERS=index WARMUP=1000 DP_EXAMPLES= DRY=0 TIME_LIMIT="$c" WORK="$WORK/dp" OUT="$SCRATCH/dp" \
      bash "$here/multi-gpu.sh"
  grep -E 'target: NCCL' "$WORK/dp/summary.txt" 2>/dev/null | sed 's/^ */   /' | tee -a "$SUMMARY"
}

part_step() {
  local c
  c=$(cap step)
  note "step: batches 128,512,2048,8192, $STEP_ROUNDS rounds, PyTorch modes $STEP_MODES (expected $(expected step) s, given $c s)"
  step step $((c + 10)) env BATCHES=128,512,2048,8192 ROUNDS="$STEP_ROUNDS" WARMUP="$STEP_WARMUP" TESTS="$STEP_TESTS" \
      UNFUSED=0 PROFILE=0 TORCH_MODES="$STEP_MODES" TIME_LIMIT="$c" WORK="$WORK/step" OUT="$SCRATCH/step" \
      bash "$here/train-sweep.sh"
}

part_bw() {
  local c bin
  [ "$N" -ge 2 ] || { note "== bw: not run: $N GPU"; return 0; }
  c=$(cap bw)
  bin=${NCCL_TESTS_BIN:-}
  if [ -z "$bin" ] && command -v all_reduce_perf > /dev/null; then bin=$(dirname "$(command -v all_reduce_perf)"); fi
  note "bw: all-reduce busbw on 2 GPUs, $BW_ROUNDS rounds, $BW_ITERS calls a size (expected $(expected bw) s, given $c s)"
  step bw/nccl-tests "$c" env GPUS=2 ROUNDS="$BW_ROUNDS" ITERS="$BW_ITERS" COLLECTIVES=all_reduce NCCL_TESTS_BIN="$bin" \
      OUT="$WORK/bw/nccl-tests" bash "$here/nccl-tests.sh"
  if ls "$WORK"/bw/nccl-tests/nccl-tests-all_reduce.csv "$WORK"/bw/nccl-tests/r*/nccl-tests-all_reduce.csv > /dev/null 2>&1; then
    return 0
  fi
  note "bw: nccl-tests did not run here ($(grep -m1 'nccl-tests:' "$WORK/bw/nccl-tests.txt" 2>/dev/null | sed 's/^.*nccl-tests: //')):" \
       "torch.distributed is the anchor"
  c=$(( $(left) - RESERVE - 15 ))
  step bw/torch $((c + 10)) env GPUS=2 PARTS=bw BW_COLLECTIVES=allReduce BW_ROUNDS="$BW_ROUNDS" BW_MIN=8 BW_MAX=1G \
      BW_ITERS="$BW_ITERS" BW_MIN_ITERS="$BW_ITERS" BW_WARMUP=5 DRY=0 TIME_LIMIT="$c" WORK="$WORK/bw/torch" OUT="$SCRATCH/bw" \
      bash "$here/multi-gpu.sh"
}

total=0
for p in $PARTS; do total=$((total + $(expected "$p"))); done
[ "$total" -gt $((TIME_LIMIT - RESERVE - 20)) ] && note "parts $PARTS are expected to take about $total s, more than the" \
    "time limit leaves: the last ones may be cut short (split them over calls: PARTS=dp, then PARTS=\"step bw\")"
for p in $PARTS; do
  case $p in
    dp) part_dp ;;
    step) part_step ;;
    bw) part_bw ;;
    *) note "unknown part '$p' (dp, step, bw)" ;;
  esac
done
rm -rf "$SCRATCH"
note "== report"
python3 "$here/targets_report.py" "$WORK" --out "$WORK/targets.md" 2>&1 | tee -a "$SUMMARY"
cp "$WORK/targets.md" "$FINAL_OUT/targets.md" 2>/dev/null
note "done in $((SECONDS - T0)) s: $FINAL_OUT/$TAR"
