#!/usr/bin/env bash
# The multi-GPU run in one call, on all the GPUs of this machine (N from nvidia-smi: 1, 2, 4, 8 ... whatever it has):
#   tests    the GPU test suite (every test tagged gpu, the multi-GPU ones included); counts in tests-counts.txt
#   dp       data-parallel training on 1, 2, 4 ... N GPUs, NCCL and MPI routes, beside PyTorch DDP on the same model,
#            data and batch per GPU: Fashion-MNIST and the CIFAR-shaped set. Rounds alternate between ours and DDP's
#            (odd rounds ours first, even rounds DDP's first); each round runs every GPU count once. Merged per data
#            set (mpi2nccl run --from-csv), targets judged by dist_targets.py at every GPU count.
#   bw       the bandwidth harness on 2, 4 ... N GPUs: allReduce, allGather, reduceScatter, broadcast, 8 B .. 1 GiB,
#            NCCL as nccl-tests runs it, beside torch.distributed (torch_allreduce.py), alternating rounds
#   lessons  lessons 04, 05 and 07 executed with the bundle's `mpi2nccl execute` (skipped, saying so, where the
#            bundle has no such command)
# Everything lands in $OUT/multi-gpu.tgz (unpack it and run `mpi2nccl scaling-report DIR --out results/TOPIC`),
# with $OUT/summary.txt beside it: one file to copy back.
#
# Usage, from the repository root on the GPU machine (the bundle: $BUNDLE, else ./bundle, else /tmp/bundle, else
# build/mpi2nccl-bundle.tar.xz unpacked to /tmp):
#   OUT=$OUT bash scripts/gpu/multi-gpu.sh
#   DRY=1 OUT=$OUT bash scripts/gpu/multi-gpu.sh        # 1-GPU parts only, tiny sizes: about 2 minutes on one GPU
# Fashion-MNIST is not on the GPU machine: carry it in the git-ignored data/ folder (cp -r
# /usr/share/datasets/fashion-mnist data/, then carry "data"), or set FASHION_DIR. Without it that set is skipped.
#
# Settings (environment), with the defaults chosen to fit about 9 minutes on 2 GPUs:
#   PARTS="tests dp bw lessons"   which parts, in this order     TIME_LIMIT=540   seconds for the whole run; a step that
#   GPUS (nvidia-smi's count)     use fewer GPUs                              would start with too little left is
#   ROUNDS=2 EPOCHS=5 CIFAR_EPOCHS=2 WARMUP=1000 DP_SETS="fashion cifar"      skipped, saying so
#   DP_ROUTES=nccl,mpi   DP_EXAMPLES (e.g. "--train-examples 20000 --test-examples 2000": fewer examples per epoch)
#   DDP_LOADERS=index (also: pinned resident)   BW_ROUNDS=2 BW_MIN=8 BW_MAX=1G BW_ITERS=20 BW_WARMUP=5
#   BW_MIN_ITERS (calls per size at least, however long a call takes; default 3, or BW_ITERS if fewer)
#   BW_COLLECTIVES=allReduce,allGather,reduceScatter,broadcast   LESSONS="04 05 07"   TESTS_FILTER (a class-name regex)
# On 4 or 8 GPUs a round has more runs: split the run over calls. On 4x H200: PARTS="tests bw" took 442 s, PARTS=dp
# (both sets, 5 and 2 epochs, 2 rounds) 476 s, PARTS=lessons 205 s (lesson 05 alone 186 s).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
here=$(cd "$(dirname "$0")" && pwd)
T0=$SECONDS
DRY=${DRY:-0}
TIME_LIMIT=${TIME_LIMIT:-540}
FINAL_OUT=${OUT:-/tmp/out}
WORK=${WORK:-/tmp/multi-gpu}
PARTS=${PARTS:-tests dp bw lessons}

# shellcheck source=find-bundle.sh
source "$here/find-bundle.sh"
BUNDLE=$(find_bundle) || { echo "multi-gpu: no bundle (set BUNDLE=/path/to/bundle, or carry build/mpi2nccl-bundle.tar.xz)"; exit 2; }
export BUNDLE
rm -rf "$WORK"; mkdir -p "$WORK" "$FINAL_OUT"
OUT=$WORK
# shellcheck source=cuda-common.sh
source "$here/cuda-common.sh"     # gpu_count, gpu_counts, torch_python, use_torch_nccl, junit_totals

# ---- progress, time limit, packing -------------------------------------------------------------------------------
TAR=multi-gpu.tgz
RESERVE=15        # seconds kept for the merge and the tar at the end
# shellcheck source=time-limit.sh
source "$here/time-limit.sh"          # note, left, step, pack (on exit)
# only this run's JVMs (the bundle's runtime) and peers: anything left is listed and ended, by process id
leftovers() {
  local pids
  pids=$(pgrep -f "$BUNDLE/runtime/bin/java|ddp_peer.py|torch_allreduce.py" | grep -vx "$$" || true)
  if [ -n "$pids" ]; then
    note "LEFTOVER PROCESSES after $1 (ended):"; ps -o pid=,args= -p $pids 2>/dev/null | cut -c1-160 | sed 's/^/   /' | tee -a "$SUMMARY"
    kill $pids 2>/dev/null; sleep 2; kill -9 $pids 2>/dev/null
  fi
  return 0
}

# ---- the machine ---------------------------------------------------------------------------------------------------
N=$(gpu_count)
[ "${N:-0}" -ge 1 ] 2>/dev/null || { note "multi-gpu: no GPU here (nvidia-smi: ${N:-none}); set GPUS only to use fewer"; exit 2; }
if [ "$DRY" = 1 ]; then
  DP_COUNTS=1; BW_COUNTS=1
  ROUNDS=${ROUNDS:-2}; EPOCHS=${EPOCHS:-1}; CIFAR_EPOCHS=${CIFAR_EPOCHS:-1}; WARMUP=${WARMUP:-20}
  EXAMPLES=(--train-examples 2048 --test-examples 512); DDP_EXAMPLES="--train-examples 2048 --test-examples 512"
  BW_ROUNDS=${BW_ROUNDS:-1}; BW_MAX=${BW_MAX:-1M}; BW_ITERS=${BW_ITERS:-5}; BW_WARMUP=${BW_WARMUP:-2}
  LESSONS=${LESSONS:-04}; TESTS_FILTER=${TESTS_FILTER:-'org\.mpi2nccl\.(parallel\.DataParallelAllGpusTest|cuda\.CudaRuntimeTest)'}
else
  DP_COUNTS=$(gpu_counts "$N"); BW_COUNTS=$(gpu_counts "$N" 2)
  ROUNDS=${ROUNDS:-2}; EPOCHS=${EPOCHS:-5}; CIFAR_EPOCHS=${CIFAR_EPOCHS:-2}; WARMUP=${WARMUP:-1000}
  # shellcheck disable=SC2206   # DP_EXAMPLES: options, split on spaces (e.g. "--train-examples 20000")
  EXAMPLES=(${DP_EXAMPLES:-}); DDP_EXAMPLES=${DP_EXAMPLES:-}
  BW_ROUNDS=${BW_ROUNDS:-2}; BW_MAX=${BW_MAX:-1G}; BW_ITERS=${BW_ITERS:-20}; BW_WARMUP=${BW_WARMUP:-5}
  LESSONS=${LESSONS:-04 05 07}; TESTS_FILTER=${TESTS_FILTER:-}
fi
DP_SETS=${DP_SETS:-fashion cifar}
DDP_LOADERS=${DDP_LOADERS:-index}
BW_COLLECTIVES=${BW_COLLECTIVES:-allReduce,allGather,reduceScatter,broadcast}
FASHION_DIR=${FASHION_DIR:-}
for d in "$FASHION_DIR" "$PWD/data/fashion-mnist" "$BUNDLE/data/fashion-mnist" /usr/share/datasets/fashion-mnist; do
  if [ -n "$d" ] && { [ -s "$d/train-images-idx3-ubyte.gz" ] || [ -s "$d/train-images-idx3-ubyte" ]; }; then FASHION_DIR=$d; break; fi
done

note "multi-gpu $( [ "$DRY" = 1 ] && echo "DRY (1-GPU parts, tiny sizes) ")$(date -u +%FT%TZ) on $(hostname): $N GPU(s); parts: $PARTS; time limit $TIME_LIMIT s"
note "bundle $BUNDLE, built from $(cat "$BUNDLE/COMMIT" 2>/dev/null || echo '? (no COMMIT file)'); repository at $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"
nvidia-smi topo -m > "$WORK/topology.txt" 2>&1
torch_python
use_torch_nccl
note "PyTorch: $("$PY" -c 'import torch; print(torch.__version__, "NCCL", ".".join(map(str, torch.cuda.nccl.version())))' 2>/dev/null || echo 'not found (set PYTHON=/path/to/python3 with torch): the peers are skipped')"
note "NCCL for the toolkit: ${NCCL_HOME:-the library search (NCCL_HOME unset)}"
note "data-parallel on GPU counts $DP_COUNTS (rounds $ROUNDS, epochs $EPOCHS / cifar $CIFAR_EPOCHS, warm-up $WARMUP steps, DDP loaders: $DDP_LOADERS); Fashion-MNIST: ${FASHION_DIR:-none}"
BW_MIN=${BW_MIN:-8}
BW_MIN_ITERS=${BW_MIN_ITERS:-$((BW_ITERS < 3 ? BW_ITERS : 3))}
note "bandwidth on GPU counts ${BW_COUNTS:-none} ($BW_COLLECTIVES, $BW_MIN B .. $BW_MAX, rounds $BW_ROUNDS)"
{ echo "gpus=$N"; echo "dry=$DRY"; echo "dp_counts=$DP_COUNTS"; echo "bw_counts=$BW_COUNTS"; echo "rounds=$ROUNDS"; echo "bw_rounds=$BW_ROUNDS"
  echo "commit=$(cat "$BUNDLE/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"; echo "date=$(date -u +%FT%TZ)"
  echo "gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"; echo "driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "torch=$("$PY" -c 'import torch; print(torch.__version__, "NCCL", ".".join(map(str, torch.cuda.nccl.version())))' 2>/dev/null)"
  echo "command=$(env | grep -E '^(DRY|PARTS|TIME_LIMIT|GPUS|ROUNDS|EPOCHS|CIFAR_EPOCHS|WARMUP|DP_SETS|DDP_LOADERS|BW_[A-Z]+|LESSONS|TESTS_FILTER)=' | sort | sed -E 's/^([A-Z_]+)=(.* .*)$/\1="\2"/' | tr '\n' ' ')bash scripts/gpu/multi-gpu.sh"
} > "$WORK/machine.txt"
has_torch() { "$PY" -c 'import torch' 2>/dev/null; }

# ---- (a) the GPU test suite ------------------------------------------------------------------------------------------
part_tests() {
  local filter=()
  [ -n "$TESTS_FILTER" ] && filter=(--include-classname "$TESTS_FILTER")
  JUNIT_REPORTS="$WORK/junit" step tests 330 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu "${filter[@]}"
  [ -s "$WORK/tests.txt" ] || return 0
  local plain="$WORK/tests-plain.txt"
  sed -E 's/\x1b\[[0-9;]*m//g' "$WORK/tests.txt" > "$plain"
  {
    echo "# the GPU test suite on $N GPU(s): bin/mpi2nccl-test --include-tag gpu${TESTS_FILTER:+ --include-classname '$TESTS_FILTER'}"
    grep -E '^\[ +[0-9]+ (tests|containers) (found|successful|failed|skipped|aborted)' "$plain"
    echo "# failed tests:"
    grep -E '✘' "$plain" | sed -E 's/^[│ ]+[├└]─ /  /' | cut -c1-300
    echo "# skipped or aborted tests (assumptions: e.g. fewer GPUs than the test needs):"
    grep -E '↷|■' "$plain" | sed -E 's/^[│ ]+[├└]─ /  /' | cut -c1-300
    echo "# what the tests said about GPUs they did not have:"
    grep -E 'skipped' "$plain" | grep -vE '^\[|[├└]─' | sort | uniq -c | cut -c1-200
  } > "$WORK/tests-counts.txt"
  grep -E '^\[' "$WORK/tests-counts.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
}

# ---- (b) data-parallel training against DDP, alternating rounds ------------------------------------------------------
dp_data() {
  case $1 in
    fashion) OURS_DATA=(--data fashion --data-dir "$FASHION_DIR" --epochs "$EPOCHS" "${EXAMPLES[@]}")
             DDP_DATA=(--data fashion --data-dir "$FASHION_DIR" --epochs "$EPOCHS" $DDP_EXAMPLES) ;;
    cifar)   OURS_DATA=(--data synthetic-cifar --epochs "$CIFAR_EPOCHS" "${EXAMPLES[@]}")
             DDP_DATA=(--data synthetic-cifar --epochs "$CIFAR_EPOCHS" $DDP_EXAMPLES) ;;
  esac
}
dp_ours() {
  local set=$1 r=$2
  step "dp/$set-ours-r$r" 420 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes "${DP_ROUTES:-nccl,mpi}" --ranks "$DP_COUNTS" \
      --batch-per-rank 128 --rounds 1 --first-round "$r" --warmup-steps "$WARMUP" --out "$WORK/dp/$set/ours-r$r" "${OURS_DATA[@]}"
  grep -E '^(single|nccl|mpi) +[0-9]+ ' "$WORK/dp/$set-ours-r$r.txt" | cut -c1-80 | sed 's/^/     /' | tee -a "$SUMMARY"
}
dp_ddp() {
  local set=$1 r=$2 loader tag
  has_torch || { note "   DDP round $r: skipped (no python with torch)"; return 0; }
  for loader in $DDP_LOADERS; do
    tag=ddp; [ "$loader" = index ] || tag=ddp-$loader
    step "dp/$set-$tag-r$r" 420 "$PY" "$here/ddp_peer.py" --ranks "$DP_COUNTS" --batch-per-rank 128 --rounds 1 --first-round "$r" \
        --loader "$loader" --warmup-steps "$WARMUP" --out "$WORK/dp/$set/$tag-r$r.csv" "${DDP_DATA[@]}"
    grep -E "^$tag x[0-9]+ round $r epoch $([ "$set" = fashion ] && echo "$EPOCHS" || echo "$CIFAR_EPOCHS"):" "$WORK/dp/$set-$tag-r$r.txt" \
      | cut -c1-80 | sed 's/^/     /' | tee -a "$SUMMARY"
  done
}
part_dp() {
  local set r csvs f
  mkdir -p "$WORK/dp"
  if [ "$DRY" != 1 ] && [ "$N" -ge 2 ]; then
    # a throw-away 2-GPU job: the first timed job on a freshly started machine came out up to 25% slower
    step dp/machine-warm-up 120 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 2 --epochs 1 --data synthetic-cifar \
        --train-examples 20000 --test-examples 1000 --out "$WORK/dp/machine-warm-up"
  fi
  for set in $DP_SETS; do
    if [ "$set" = fashion ] && [ -z "$FASHION_DIR" ]; then
      note "== dp/fashion: SKIPPED: no Fashion-MNIST (carry data/fashion-mnist, or set FASHION_DIR)"; continue
    fi
    [ "$set" = fashion ] || [ "$set" = cifar ] || { note "== dp/$set: unknown set (fashion, cifar)"; continue; }
    dp_data "$set"
    mkdir -p "$WORK/dp/$set"
    for r in $(seq 1 "$ROUNDS"); do
      # odd rounds ours first, even rounds DDP's first: a drift over the run weighs on both alike
      if [ $((r % 2)) = 1 ]; then dp_ours "$set" "$r"; dp_ddp "$set" "$r"; else dp_ddp "$set" "$r"; dp_ours "$set" "$r"; fi
    done
    csvs=""
    for f in "$WORK/dp/$set"/ours-r*/epochs.csv "$WORK/dp/$set"/ddp*-r*.csv; do [ -s "$f" ] && csvs="$csvs,$f"; done
    if [ -n "$csvs" ]; then
      step "dp/$set-vs-ddp" 120 "$BUNDLE/bin/mpi2nccl" run --from-csv "${csvs#,}" --out "$WORK/dp/$set-vs-ddp"
      python3 "$here/dist_targets.py" "$WORK/dp/$set-vs-ddp/summary.csv" 2>&1 | tee -a "$WORK/dp/targets.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
    fi
  done
}

# ---- (c) bandwidth beside torch.distributed, alternating rounds ------------------------------------------------------
bw_ours() {
  local n=$1 r=$2
  step "bw/n$n-nccl-r$r" 300 "$BUNDLE/bin/mpi2nccl" bandwidth -np "$n" --comms nccl -c "$BW_COLLECTIVES" -b "$BW_MIN" -e "$BW_MAX" -f 2 \
      -w "$BW_WARMUP" -n "$BW_ITERS" --min-iters "$BW_MIN_ITERS" --out "$WORK/bw/n$n/r$r/nccl" --title "busbw, $n GPUs: NCCL through the toolkit"
  grep -E 'bench: nccl init on rank 0' "$WORK/bw/n$n-nccl-r$r.txt" | sed -E 's/^.*bench:/     /' | tee -a "$SUMMARY"
}
bw_torch() {
  local n=$1 r=$2
  has_torch || { note "   torch.distributed round $r: skipped (no python with torch)"; return 0; }
  step "bw/n$n-torch-r$r" 300 "$PY" "$here/torch_allreduce.py" --ranks "$n" --collectives "$BW_COLLECTIVES" --min "$BW_MIN" --max "$BW_MAX" \
      --warmup "$BW_WARMUP" --iters "$BW_ITERS" --csv "$WORK/bw/n$n/r$r/torch.csv"
}
part_bw() {
  local n r
  if [ -z "$BW_COUNTS" ]; then note "== bw: SKIPPED: one GPU (the bandwidth harness needs 2; DRY=1 runs it on 1 to check the steps)"; return 0; fi
  for n in ${BW_COUNTS//,/ }; do
    mkdir -p "$WORK/bw/n$n"
    for r in $(seq 1 "$BW_ROUNDS"); do
      mkdir -p "$WORK/bw/n$n/r$r"
      if [ $((r % 2)) = 1 ]; then bw_ours "$n" "$r"; bw_torch "$n" "$r"; else bw_torch "$n" "$r"; bw_ours "$n" "$r"; fi
    done
  done
}

# ---- (d) lessons executed live ---------------------------------------------------------------------------------------
part_lessons() {
  local l nb
  if ! "$BUNDLE/bin/mpi2nccl" execute --help > /dev/null 2>&1; then
    note "== lessons: SKIPPED: this bundle has no 'mpi2nccl execute' command"; return 0
  fi
  mkdir -p "$WORK/lessons"
  # the lessons read Fashion-MNIST from Debian's folder unless told otherwise (the GPU machine has none)
  [ -n "$FASHION_DIR" ] && export MPI2NCCL_FASHION_MNIST="$FASHION_DIR"
  for l in $LESSONS; do
    nb=$(ls notebooks/"$l"-*.ipynb 2>/dev/null | head -1)
    [ -n "$nb" ] || { note "== lessons/$l: no notebooks/$l-*.ipynb here (run from the repository root)"; continue; }
    step "lessons/$l" 300 "$BUNDLE/bin/mpi2nccl" execute "$nb" --out "$WORK/lessons" --timeout 240
  done
}

for p in $PARTS; do
  case $p in
    tests) part_tests ;;
    dp) part_dp ;;
    bw) part_bw ;;
    lessons) part_lessons ;;
    *) note "unknown part '$p' (tests, dp, bw, lessons)" ;;
  esac
  leftovers "$p"
done

# the tables and targets at once, where the bundle has the report builder (charts are drawn at home from the tar)
if "$BUNDLE/bin/mpi2nccl" scaling-report --help > /dev/null 2>&1 && { [ -d "$WORK/dp" ] || [ -d "$WORK/bw" ]; }; then
  RESERVE=5 step scaling-report 60 "$BUNDLE/bin/mpi2nccl" scaling-report "$WORK" --out "$WORK/report" --no-charts
  sed -n '/^== /,$p' "$WORK/scaling-report.txt" | cut -c1-160 | sed 's/^/   /' | tee -a "$SUMMARY"
fi
note "done in $((SECONDS - T0)) s: $FINAL_OUT/multi-gpu.tgz"
