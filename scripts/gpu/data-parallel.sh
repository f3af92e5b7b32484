#!/usr/bin/env bash
# Data-parallel training on the GPUs of this machine (1, 2, 4, ... all of them; the knobs and debug steps on 2), in one run (about 5-10 minutes; under gpu-suite.sh give it STEP_TIMEOUT=1500):
#   1. junit    the correctness proof on GPUs: 2 niodev ranks with batch 12 each == 1 GPU with batch 24, through
#               NCCL and through the MPI host route (DataParallelGpuTest, @Tag("gpu"))
#   2. fashion  the speedup experiment: lesson CNN (32,64) on Fashion-MNIST, batch 128 per GPU, 1, 2, 4 ... GPUs,
#               NCCL and MPI routes; then PyTorch DDP on the same model, data and batch; one merged report
#   3. cifar    the same on a CIFAR-shaped synthetic set (3x32x32, 50000 + 10000 examples)
#   eager       (only when asked for) fashion and cifar again, NCCL route, with --no-cuda-graphs: every kernel launched
#               from Java, the all-reduce overlapped with backward (the experiment's GPU default replays CUDA graphs)
#   hostcalls   (only when asked for) the same with --no-graph-collectives: graphs for the model's kernels, NCCL's
#               all-reduces called by the host between backward's pieces (the default records them into the graphs)
#   4. knobs    the trainer's settings on 2 GPUs (NCCL and MPI): gradient bucket size 1 MiB / 8 MiB, overlap on/off
#   5. debug    lesson 06's recorded logs: a 2-GPU NCCL job with NCCL_DEBUG=INFO, and the same with a network
#               interface that does not exist (NCCL_SOCKET_IFNAME=nosuchnic0) to capture the error it causes
#   (after fashion and cifar: the targets read off the reports, dist_targets.py -> $OUT/targets.txt)
# ROUNDS (default 3): fashion and cifar run every (route, ranks) ROUNDS times in turn, ours and DDP's alike, and the
# reports judge each round against its own 1-GPU run (a machine drifting between rounds weighs on 1 and 2 GPUs alike). DDP_LOADERS (default
# "index pinned"): DDP with its loader built as ours is (route ddp) and with PyTorch's recommended DataLoader
# (workers, pinned memory, non-blocking copies: route ddp-pinned), each a row of the same report; "resident" adds
# DDP with the training set on the GPU, batches gathered there (route ddp-resident).
# Usage, from the repository root (bundle unpacked at $BUNDLE):
#   BUNDLE=/tmp/bundle OUT=/tmp/out bash scripts/gpu/data-parallel.sh [junit] [fashion] [cifar] [knobs] [debug]
# Fashion-MNIST is not on the GPU machine: carry a copy in the git-ignored data/ folder
#   mkdir -p data && cp -r /usr/share/datasets/fashion-mnist data/      (30 MB; carry "data")
# or point FASHION_DIR at it. Without it the fashion step is skipped, saying so. Results: $OUT/*/ (CSV, PNG,
# index.html), logs $OUT/*.txt, the targets in $OUT/targets.txt and $OUT/summary.txt.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
BUNDLE=${BUNDLE:-bundle}
OUT=${OUT:-/tmp/data-parallel}
FASHION_DIR=${FASHION_DIR:-$PWD/data/fashion-mnist}
EPOCHS=${EPOCHS:-5}
CIFAR_EPOCHS=${CIFAR_EPOCHS:-3}
ROUNDS=${ROUNDS:-3}
DDP_LOADERS=${DDP_LOADERS:-index pinned}
# steps run and undone before timing, ours and DDP's alike (the toolkit's GPU default; DDP's own is 10)
WARMUP=${WARMUP:-1000}
# the GPU counts: 1, 2, 4, ... and all of this machine's GPUs (COUNTS or GPUS set by the caller win)
source "$(dirname "$0")/cuda-common.sh"       # note, run (output to $OUT/NAME.txt), gpu_count, gpu_counts
COUNTS=${COUNTS:-$(gpu_counts "$(gpu_count)")}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
[ -x "$BUNDLE/bin/mpi2nccl" ] || { echo "no bundle at $BUNDLE (set BUNDLE=/path/to/bundle)"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(junit fashion cifar knobs debug)

python_with_torch() {
  local p
  for p in "${PYTHON:-}" python3 /opt/torch/.venv/bin/python3 /opt/*/.venv/bin/python3; do
    [ -n "$p" ] && "$p" -c 'import torch' 2>/dev/null && { echo "$p"; return 0; }
  done
  return 1
}

note "data-parallel $(date -u +%FT%TZ) on $(hostname); bundle built from $(cat "$BUNDLE/COMMIT" 2>/dev/null || echo '? (no COMMIT file)')"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"
PY=$(python_with_torch) || PY=""
[ -n "$PY" ] && note "PyTorch: $("$PY" -c 'import torch; print(torch.__version__, "NCCL", ".".join(map(str, torch.cuda.nccl.version())))' 2>&1)" \
             || note "PyTorch: not found (set PYTHON=/path/to/python3 with torch): the DDP peer is skipped"

# one (our experiment, DDP peer, merged report) for a data set: NAME then extra `mpi2nccl run` options
experiment() {
  local name=$1 ddp_data=$2; shift 2
  run "$name" 900 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl,mpi --ranks "$COUNTS" --batch-per-rank 128 \
      --rounds "$ROUNDS" --warmup-steps "$WARMUP" --out "$OUT/$name" "$@"
  sed -n '/^Summary/,/^(phase/p;/rounds, every run/,/^[^ ]/p' "$OUT/$name.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
  local csvs="$OUT/$name/epochs.csv" loader tag
  if [ -n "$PY" ]; then
    for loader in $DDP_LOADERS; do
      tag=ddp; [ "$loader" = index ] || tag=ddp-$loader
      run "$name-$tag" 900 "$PY" "$here/ddp_peer.py" --ranks "$COUNTS" --batch-per-rank 128 --rounds "$ROUNDS" --loader "$loader" --warmup-steps "$WARMUP" \
          --out "$OUT/$name/$tag.csv" $ddp_data
      grep '^ddp' "$OUT/$name-$tag.txt" | grep -E 'epoch [0-9]+:' | sed 's/^/   /' | tail -n 4 | tee -a "$SUMMARY"
      [ -s "$OUT/$name/$tag.csv" ] && csvs="$csvs,$OUT/$name/$tag.csv"
    done
  fi
  if [ -s "$OUT/$name/epochs.csv" ]; then
    run "$name-vs-ddp" 120 "$BUNDLE/bin/mpi2nccl" run --from-csv "$csvs" --out "$OUT/$name-vs-ddp"
    python3 "$here/dist_targets.py" "$OUT/$name-vs-ddp/summary.csv" 2>&1 | tee -a "$OUT/targets.txt" | tee -a "$SUMMARY"
  fi
}

# A throw-away 2-GPU job first: right after the machine starts, the first timed job came out up to 25% slower
# than the same job a minute later (seen in several runs), which would be counted against whichever run is first.
run machine-warm-up 120 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 2 --epochs 1 --data synthetic-cifar \
    --train-examples 20000 --test-examples 1000 --out "$OUT/machine-warm-up" >/dev/null

for s in "${steps[@]}"; do
  case "$s" in
    junit)
      # (the bundle's runner scans the class path: select by class name, --select-package cannot be combined)
      JUNIT_REPORTS="$OUT/junit" run junit 600 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu --include-classname 'org\.mpi2nccl\.parallel\..*'
      grep -E 'max relative difference|skipped|tests (successful|failed|found|skipped)' "$OUT/junit.txt" | sed 's/^/   /' | tee -a "$SUMMARY" ;;
    fashion)
      if [ -s "$FASHION_DIR/train-images-idx3-ubyte.gz" ] || [ -s "$FASHION_DIR/train-images-idx3-ubyte" ]; then
        experiment fashion "--data fashion --data-dir $FASHION_DIR --epochs $EPOCHS" \
            --data fashion --data-dir "$FASHION_DIR" --epochs "$EPOCHS"
      else
        note "== fashion: skipped: no Fashion-MNIST in $FASHION_DIR (carry data/fashion-mnist, or set FASHION_DIR)"
      fi ;;
    cifar)
      experiment cifar "--data synthetic-cifar --epochs $CIFAR_EPOCHS" --data synthetic-cifar --epochs "$CIFAR_EPOCHS" ;;
    eager|hostcalls)
      # the same experiments, NCCL route only, with every kernel launched from Java (eager: no CUDA graphs, what graphs
      # buy) or with the all-reduces left out of the graphs (hostcalls: the host calls NCCL between backward's pieces)
      how=--no-cuda-graphs; [ "$s" = hostcalls ] && how=--no-graph-collectives
      for d in fashion cifar; do
        if [ $d = fashion ]; then data=(--data fashion --data-dir "$FASHION_DIR" --epochs "$EPOCHS"); else data=(--data synthetic-cifar --epochs "$CIFAR_EPOCHS"); fi
        [ $d = fashion ] && ! [ -s "$FASHION_DIR/train-images-idx3-ubyte.gz" ] && ! [ -s "$FASHION_DIR/train-images-idx3-ubyte" ] && continue
        run "$d-$s" 600 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks "$COUNTS" --batch-per-rank 128 $how \
            "${data[@]}" --out "$OUT/$d-$s"
        sed -n '/^Summary/,/^(phase/p' "$OUT/$d-$s.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
      done ;;
    knobs)
      if [ -s "$FASHION_DIR/train-images-idx3-ubyte.gz" ] || [ -s "$FASHION_DIR/train-images-idx3-ubyte" ]; then
        data=(--data fashion --data-dir "$FASHION_DIR")
      else
        data=(--data synthetic-cifar)
      fi
      for k in "1024 on" "8192 on" "1024 off" "8192 off"; do
        set -- $k
        run "knobs-$1k-overlap-$2" 300 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl,mpi --ranks 2 --epochs 2 \
            --batch-per-rank 128 --bucket-kib "$1" $([ "$2" = off ] && echo --no-overlap) "${data[@]}" --out "$OUT/knobs-$1k-overlap-$2"
        grep -E '^(nccl|mpi) ' "$OUT/knobs-$1k-overlap-$2.txt" | sed "s/^/   bucket $1 KiB, overlap $2: /" | tee -a "$SUMMARY"
      done ;;
    debug)
      mkdir -p "$OUT/debug"
      NCCL_DEBUG=INFO run nccl-debug 240 "$BUNDLE/bin/mpi2nccl" mpjrun -np 2 --device niodev --timeout 200s \
          org.mpi2nccl.bench.gpu.EquivalenceRank route=nccl device=cuda model=cnn steps=3 out="$OUT/debug/ok"
      grep -cE 'NCCL INFO' "$OUT/nccl-debug.txt" | sed 's/^/   NCCL INFO lines: /' | tee -a "$SUMMARY"
      NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=nosuchnic0 run nccl-bad-ifname 240 "$BUNDLE/bin/mpi2nccl" mpjrun -np 2 --device niodev \
          --timeout 200s org.mpi2nccl.bench.gpu.EquivalenceRank route=nccl device=cuda model=cnn steps=3 out="$OUT/debug/bad"
      grep -E 'WARN|failed|error' "$OUT/nccl-bad-ifname.txt" | head -5 | sed 's/^/   /' | tee -a "$SUMMARY" ;;
    *) note "unknown step '$s' (junit, fashion, cifar, eager, hostcalls, knobs, debug)" ;;
  esac
done
# nothing of ours left running
if pgrep -af 'daemon.jar|org.mpi2nccl|ddp_peer' | grep -v pgrep; then note "LEFTOVER PROCESSES (listed above)"; else note "no leftover processes"; fi
note "done: $OUT"
