#!/usr/bin/env bash
# Issue 7: where the 2-GPU speedup is lost (1.73x against the 1.9x target, results/dist-check/). One run of about
# 6 minutes on the 2-GPU machine:
#   facts      CPUs, NUMA nodes, GPU topology and which profilers exist
#   junit      the block cache and the per-step work counts on a GPU (BlockCacheGpuTest, StepWorkCountGpuTest)
#   bench      one lesson-CNN step on 1 GPU: synchronized, and queued (host time to queue vs GPU time: launch-bound?)
#   variants   the speedup experiment on Fashion-MNIST (NCCL route, 1 and 2 GPUs) as it is and with one thing
#              changed at a time: JFR sampling every 1 ms, the parallel garbage collector, NCCL limited to 2
#              channels, overlap off, one gradient bucket, the ranks pinned to the GPUs' NUMA node
# Usage, from the repository root (bundle unpacked at $BUNDLE, Fashion-MNIST carried in data/fashion-mnist):
#   BUNDLE=/tmp/bundle OUT=/tmp/out EPOCHS=10 bash results/device/scaling-probe.sh [VARIANT...]
# Results: $OUT/summary.txt (one speedup line per variant), $OUT/scaling-probe.tgz (all logs, CSVs, recordings).
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/scaling-probe}; EPOCHS=${EPOCHS:-10}
FASHION_DIR=${FASHION_DIR:-$PWD/data/fashion-mnist}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"     # NCCL multicast off, the bundle checked, note, header, SUMMARY
header scaling-probe
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(facts junit bench base jfr pgc nch2 nooverlap onebucket pin)

# run NAME [ENV=VALUE...] -- [mpi2nccl run options]: the experiment, its summary lines to the summary
experiment() {
  local name=$1; shift
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local t0=$SECONDS
  env "${envs[@]}" ${PREFIX:-} timeout --kill-after=10 240 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 1,2 \
      --epochs "$EPOCHS" --batch-per-rank 128 --data fashion --data-dir "$FASHION_DIR" --out "$work/$name" "$@" > "$work/$name.txt" 2>&1
  note "== $name: exit $? in $((SECONDS - t0)) s ${envs[*]} ${PREFIX:-} $*"
  grep -E '^(single|nccl) +[0-9]' "$work/$name.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
}

for v in "${variants[@]}"; do
  case "$v" in
    facts)
      { nproc; lscpu | grep -E 'Model name|Socket|NUMA|Thread|Core|MHz'; command -v numactl && numactl -H
        nvidia-smi topo -m; for t in nsys ncu numactl taskset perf; do echo "$t: $(command -v $t || ls /usr/local/cuda/bin/$t 2>/dev/null || echo none)"; done
      } > "$work/facts.txt" 2>&1
      sed 's/^/   /' "$work/facts.txt" | tee -a "$SUMMARY" ;;
    junit)
      JUNIT_REPORTS="$work/junit" timeout --kill-after=10 300 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu \
          --include-classname 'org\.mpi2nccl\.(dist\.StepWorkCountGpuTest|cuda\.BlockCacheGpuTest)' > "$work/junit.txt" 2>&1
      note "== junit: exit $?"
      grep -E 'kernel launches|tests (successful|failed|found)|AssertionFailed' "$work/junit.txt" | head -8 | cut -c1-400 | sed 's/^/   /' | tee -a "$SUMMARY" ;;
    bench)
      timeout --kill-after=10 200 "$BUNDLE/bin/mpi2nccl" bench-gpu --only train > "$work/bench.txt" 2>&1
      note "== bench: exit $?"
      grep -iE 'cnn' "$work/bench.txt" | cut -c1-200 | sed 's/^/   /' | tee -a "$SUMMARY"
      # a throw-away 2-GPU job: the first timed job after the machine starts runs slower (dist-check.sh)
      timeout --kill-after=10 120 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 2 --epochs 1 --data synthetic-cifar \
          --train-examples 20000 --test-examples 1000 --out "$work/machine-warm-up" > /dev/null 2>&1 ;;
    base) experiment base -- ;;
    jfr)
      mkdir -p "$work/jfr"
      experiment jfr "MPI2NCCL_RANK_JAVA_OPTS=-XX:StartFlightRecording=filename=$work/jfr/rank-%p.jfr,settings=profile,dumponexit=true,jdk.ExecutionSample#period=1ms,jdk.NativeMethodSample#period=1ms" -- ;;
    pgc) experiment pgc "MPI2NCCL_RANK_JAVA_OPTS=-XX:+UseParallelGC -Xmn1g" -- ;;
    nch2) experiment nch2 NCCL_MAX_NCHANNELS=2 NCCL_MIN_NCHANNELS=1 -- ;;
    nooverlap) experiment nooverlap -- --no-overlap ;;
    onebucket) experiment onebucket -- --bucket-kib 8192 ;;
    pin)
      # every rank JVM on the CPUs of GPU 0's NUMA node (the affinity nvidia-smi reports), when there is one
      cpus=$(nvidia-smi topo -m 2>/dev/null | awk '$1=="GPU0" {for (i=2;i<=NF;i++) if ($i ~ /^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$/ && $i ~ /-/) {print $i; exit}}')
      if [ -n "$cpus" ] && command -v taskset > /dev/null; then PREFIX="taskset -c $cpus" experiment pin -- ; else note "== pin: skipped (no CPU affinity in nvidia-smi topo -m, or no taskset)"; fi ;;
    *) note "unknown variant '$v'" ;;
  esac
done
if pgrep -af 'daemon.jar|org.mpi2nccl' | grep -v pgrep; then note "LEFTOVER PROCESSES (listed above)"; else note "no leftover processes"; fi
tar czf "$OUT/scaling-probe.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
