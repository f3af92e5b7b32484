#!/usr/bin/env bash
# Lesson 05's recorded GPU timeline (under a minute on 2 GPUs):
#   1. on, off  2 ranks on 2 GPUs over NCCL, the lesson CNN (32, 64 channels) on a CIFAR-shaped synthetic set
#               (3x32x32, 10 classes), 128 examples per GPU, CUDA graphs as the experiment replays them; after
#               WARMUP steps a Timeline records STEPS steps (CUDA events on the model's and NCCL's streams), once
#               with overlap on (-> $OUT/timeline/trace.json, the file lesson 05 reads) and once with overlap off
#               (-> $OUT/timeline/trace-no-overlap.json); a PNG chart of each where the machine has fonts
#   2. tests    the GPU timeline tests again through the bundle's test launcher (TimelineGpuTest, tagged gpu, and
#               TimelineJobTest, its CPU counterpart) -> $OUT/tests.txt, JUnit reports in $OUT/junit
# Ship $OUT/timeline/trace.json as results/data-parallel-2gpu/timeline/trace.json (toolkit/pom.xml puts it on the
# class path) and note where it was recorded in results/data-parallel-2gpu/README.md and
# toolkit/src/main/resources/org/mpi2nccl/lessons/recorded/data-parallel-2gpu.properties ($OUT/timeline/source.txt
# has the line).
# DRY=1: on one GPU, both ranks on cuda:0 through the MPI host route (NCCL refuses two ranks on one GPU) and fewer
# steps: checks the script and the program, records nothing to ship.
# Usage, from the repository root with the bundle unpacked:
#   BUNDLE=/tmp/bundle OUT=/tmp/out bash scripts/gpu/timeline.sh [on] [off] [tests]
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
DRY=${DRY:-0}
WARMUP=${WARMUP:-30}
STEPS=${STEPS:-3}
BATCH=${BATCH:-128}
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(on off tests)
header "timeline"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"
GPU_COUNT=$(gpu_count)
if [ "$DRY" = 1 ]; then
  ROUTE=mpi WARMUP=3 STEPS=2
  note "DRY: 2 ranks on cuda:0 through the MPI route, $WARMUP warm-up steps: nothing here is to be shipped"
elif [ "$GPU_COUNT" -ge 2 ]; then
  ROUTE=nccl
else
  note "this machine has $GPU_COUNT GPU(s): the timeline needs 2 (run with DRY=1 to check the script on one)"
  exit 2
fi
mkdir -p "$OUT/timeline"

# record NAME OVERLAP: one 2-rank job of TimelineRank; its trace and chart under $OUT/timeline
record() {
  local name=$1 overlap=$2 file
  file=$([ "$overlap" = true ] && echo trace || echo trace-no-overlap)
  run "timeline-$name" 120 "$BUNDLE/bin/mpi2nccl" mpjrun -np 2 --device niodev --timeout 100s \
      org.mpi2nccl.bench.gpu.TimelineRank route=$ROUTE device=cuda overlap=$overlap batch-per-rank=$BATCH \
      warmup=$WARMUP steps=$STEPS trace="$OUT/timeline/$file.json" chart="$OUT/timeline/$file.png"
  grep -E '\] (rank 0:|trace:|chart:|no chart)' "$OUT/timeline-$name.txt" | cut -c1-400 | sed 's/^/    /' | tee -a "$SUMMARY"
}

for s in "${steps[@]}"; do
  case $s in
    on) record on true ;;
    off) record off false ;;
    tests)
      JUNIT_REPORTS="$OUT/junit" run tests 180 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-tag gpu \
          --include-classname 'org\.mpi2nccl\.parallel\.gpu\.TimelineGpuTest'
      junit_totals "$OUT/tests.txt"
      grep -E 'MethodSource' "$OUT/tests.txt" | sed -E "s/.*className = '([^']*)', methodName = '([^']*)'.*/    failed test: \1.\2/" | tee -a "$SUMMARY"
      JUNIT_REPORTS="$OUT/junit-cpu" run tests-cpu 120 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors \
          --include-classname 'org\.mpi2nccl\.parallel\.gpu\.TimelineJobTest'
      junit_totals "$OUT/tests-cpu.txt" ;;
    *) note "unknown step '$s': use on, off or tests"; exit 2 ;;
  esac
done

if [ "$DRY" != 1 ] && [ -s "$OUT/timeline/trace.json" ]; then
  echo "timeline/trace.json=$(date -u '+%F %H:%M') UTC, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | sed 's/^NVIDIA //')" \
       "x$GPU_COUNT, commit $(cat "$BUNDLE/COMMIT" 2>/dev/null || echo '?'), scripts/gpu/timeline.sh" > "$OUT/timeline/source.txt"
fi
if pgrep -af 'daemon.jar|org.mpi2nccl' | grep -v pgrep; then note "LEFTOVER PROCESSES (above)"; else note "no leftover processes"; fi
note "done in $SECONDS s: $OUT"
