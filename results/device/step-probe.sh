#!/usr/bin/env bash
# Issue 7: where a 2-GPU step replayed from CUDA graphs loses time against one GPU, one knob at a time, in one
# run (the machine's speed drifts between runs: only compare rows of one invocation). About 6 minutes.
#   junit   DataParallelGpuTest's case with the all-reduces recorded into the graphs (MPI2NCCL_GRAPH_COLLECTIVES=1)
#   sweep   the Fashion-MNIST experiment, NCCL route: 1 GPU, then 2 GPUs with each variant of SWEEP (recorded, tail, settle,
#           split, baseline, presence, route1, carveout, gradsum, ncclenv, lastbucket or ctas, below; DATA="--data ..." replaces Fashion-MNIST), ROUNDS times; each row's per-step phases against the 1-GPU row by step_phases.py
# Usage, from the repository root (bundle unpacked at $BUNDLE, Fashion-MNIST carried in data/fashion-mnist):
#   BUNDLE=/tmp/bundle OUT=/tmp/out EPOCHS=6 ROUNDS=2 bash results/device/step-probe.sh [junit] [sweep]
# Results: $OUT/summary.txt, $OUT/step-probe.tgz (logs, CSVs).
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/step-probe}; EPOCHS=${EPOCHS:-6}; ROUNDS=${ROUNDS:-2}
FASHION_DIR=${FASHION_DIR:-$PWD/data/fashion-mnist}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"     # NCCL multicast off, the bundle checked, note, header, SUMMARY
header step-probe
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(junit sweep)
# variant NAME RANKS "ENV..." RUN-OPTIONS...
variant() {
  local name=$1 ranks=$2 vars=$3; shift 3
  # the GPUs' clocks, power and temperature while it runs (a uniform slowdown of every kernel would show here)
  nvidia-smi --query-gpu=index,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu --format=csv,noheader,nounits \
      -lms 200 > "$work/$name.smi.csv" 2>/dev/null & local smi=$!
  env $vars timeout --kill-after=10 200 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes "${ROUTE:-nccl}" --ranks "$ranks" --epochs "$EPOCHS" \
      --batch-per-rank 128 ${DATA:---data fashion --data-dir $FASHION_DIR} --out "$work/$name" "$@" > "$work/$name.txt" 2>&1
  local rc=$?; kill $smi 2>/dev/null; wait $smi 2>/dev/null
  note "== $name: exit $rc $vars $*"
  # per GPU, over the samples where it was busy: mean SM clock (MHz), power (W), temperature (C)
  awk -F', *' '$6 > 20 { n[$1]++; c[$1] += $2; p[$1] += $4; t[$1] += $5 }
      END { for (g in n) printf "   gpu %s busy %d samples: sm %.0f MHz, %.0f W, %.0f C\n", g, n[g], c[g]/n[g], p[g]/n[g], t[g]/n[g] }' \
      "$work/$name.smi.csv" | sort | tee -a "$SUMMARY"
  grep -E 'graphs off|Exception|rank 0: [0-9]+ steps replayed' "$work/$name.txt" | head -3 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY"
}
for s in "${steps[@]}"; do
  case "$s" in
    junit)
      JUNIT_REPORTS="$work/junit" timeout --kill-after=10 300 "$BUNDLE/bin/mpi2nccl-test" \
          --select-method 'org.mpi2nccl.dist.DataParallelGpuTest#ncclRecordedInCudaGraphsOnTwoGpusMatchesOneGpuWithTheWholeBatch' \
          --select-class org.mpi2nccl.dist.StepGraphsGpuTest > "$work/junit.txt" 2>&1
      note "== junit: exit $?"
      grep -E 'tests (successful|failed)|max relative|MethodSource|=> ' "$work/junit.txt" | head -12 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY" ;;
    sweep)
      timeout --kill-after=10 120 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 2 --epochs 1 --data synthetic-cifar \
          --train-examples 20000 --test-examples 1000 --out "$work/machine-warm-up" > /dev/null 2>&1
      for r in $(seq 1 "$ROUNDS"); do
        variant "r$r-1gpu" 1 "A=1"
        case "${SWEEP:-tail}" in
          recorded)     # 7ef51c7 (the all-reduces recorded with MPI2NCCL_GRAPH_COLLECTIVES=1, host calls otherwise)
            variant "r$r-base" 2 "A=1"
            variant "r$r-rec" 2 "MPI2NCCL_GRAPH_COLLECTIVES=1"
            variant "r$r-noov" 2 "A=1" --no-overlap
            variant "r$r-noov-rec" 2 "MPI2NCCL_GRAPH_COLLECTIVES=1" --no-overlap
            variant "r$r-noov4m" 2 "A=1" --no-overlap --bucket-kib 4096
            variant "r$r-noov4m-rec" 2 "MPI2NCCL_GRAPH_COLLECTIVES=1" --no-overlap --bucket-kib 4096
            variant "r$r-ll128" 2 "NCCL_PROTO=LL128"
            variant "r$r-rec-ll" 2 "MPI2NCCL_GRAPH_COLLECTIVES=1 NCCL_PROTO=LL" ;;
          tail)         # 55c4a82 on (recorded all-reduces by default): the tail bucket and NCCL's CTAs beside backward
            variant "r$r-rec" 2 "A=1"
            variant "r$r-kib64" 2 "A=1" --bucket-kib 64      # conv1 + bn1 alone in the last bucket (1.4 KB)
            variant "r$r-ctas8" 2 "NCCL_MAX_CTAS=8"
            variant "r$r-ctas4" 2 "NCCL_MAX_CTAS=4"
            variant "r$r-kib64-ctas8" 2 "NCCL_MAX_CTAS=8" --bucket-kib 64 ;;
          baseline)     # one GPU with no communicator at all (the MPI route's single rank, what dist-check's baseline is)
                        # against one GPU with a 1-rank NCCL communicator, whose kernels ran 1.7% slower in earlier runs
            ROUTE=mpi variant "r$r-1gpu-mpi" 1 "A=1"
            variant "r$r-1gpu-nccl-cumem0" 1 "NCCL_CUMEM_ENABLE=0"
            ROUTE=mpi variant "r$r-1gpu-mpi2" 1 "A=1"
            variant "r$r-2gpu" 2 "A=1"
            variant "r$r-2gpu-cumem0" 2 "NCCL_CUMEM_ENABLE=0" ;;
          presence)     # what of a 1-rank NCCL communicator slows one GPU's training (run with DATA="--data synthetic-cifar")
            ROUTE=mpi variant "r$r-1gpu-mpi" 1 "A=1"
            variant "r$r-1gpu-nccl-ras0" 1 "NCCL_RAS_ENABLE=0"
            variant "r$r-1gpu-nccl-ahead32" 1 "MPI2NCCL_STEPS_AHEAD=32"
            ROUTE=mpi variant "r$r-1gpu-mpi-ahead32" 1 "MPI2NCCL_STEPS_AHEAD=32"
            variant "r$r-1gpu-nccl-noaff" 1 "NCCL_IGNORE_CPU_AFFINITY=1"
            ROUTE=mpi variant "r$r-1gpu-mpi2" 1 "A=1" ;;
          settle)       # session 6: why a 2-GPU run's first epochs are slower (a rank late to an epoch: garbage collection?)
                        # -Xlog:gc puts each rank's collections, with their pauses, in the run's log
            variant "r$r-2gpu" 2 "A=1"
            variant "r$r-2gpu-gclog" 2 "MPI2NCCL_RANK_JAVA_OPTS=-Xlog:gc"
            variant "r$r-2gpu-parallelgc" 2 "MPI2NCCL_RANK_JAVA_OPTS=-XX:+UseParallelGC" ;;
          route1)       # session 7: one GPU, MPI route (no communicator) against NCCL route (a 1-rank NCCL communicator), on
                        # each GPU: is the NCCL-route rank's 1.4-2.5% slower GPU work the GPU (clocks), the device, or NCCL?
            ROUTE=mpi variant "r$r-1gpu-mpi" 1 "A=1"
            variant "r$r-1gpu-nccl-gpu1" 1 "CUDA_VISIBLE_DEVICES=1"
            ROUTE=mpi variant "r$r-1gpu-mpi-gpu1" 1 "CUDA_VISIBLE_DEVICES=1"
            variant "r$r-1gpu-nccl2" 1 "A=1" ;;
          carveout)     # session 7: an NCCL kernel leaves the SMs with its large shared-memory carveout (little L1) and
                        # our kernels, asking for none, keep it? MPI2NCCL_SMEM_CARVEOUT=0 had every kernel of ours ask for
                        # the most L1 (run with the bundle of 45cb75f: no, it only slowed backward; the knob is gone since)
            ROUTE=mpi variant "r$r-1gpu-mpi" 1 "A=1"
            ROUTE=mpi variant "r$r-1gpu-mpi-c0" 1 "MPI2NCCL_SMEM_CARVEOUT=0"
            variant "r$r-1gpu-c0" 1 "MPI2NCCL_SMEM_CARVEOUT=0"
            variant "r$r-2gpu" 2 "A=1"
            variant "r$r-2gpu-c0" 2 "MPI2NCCL_SMEM_CARVEOUT=0" ;;
          gradsum)      # session 7: ncclAvg (NCCL's average) leaves one GPU's kernels 2% slower after a few calls (RouteProbe
                        # avg-nccl); with MPI2NCCL_PROBE_GRADIENT_SUM=1 the buckets are summed instead (timing only: the update
                        # is then twice too large) and the BN statistics summed and scaled (run with the bundle of 40bd6b6:
                        # no change on 2 GPUs, any NCCL kernel does it; the knob is gone since)
            ROUTE=mpi variant "r$r-1gpu-mpi" 1 "A=1"
            variant "r$r-2gpu" 2 "A=1"
            variant "r$r-2gpu-sum" 2 "MPI2NCCL_PROBE_GRADIENT_SUM=1" ;;
          ncclenv)      # session 7: once NCCL has launched kernels, ours run 2% slower for good; NCCL launches its kernels in
                        # CUDA's "remote" memory-sync domain (NCCL_MEM_SYNC_DOMAIN) and in thread-block clusters (NCCL_CGA_CLUSTER_SIZE)
            ROUTE=mpi variant "r$r-1gpu-mpi" 1 "A=1"
            variant "r$r-2gpu" 2 "A=1"
            variant "r$r-2gpu-domain0" 2 "NCCL_MEM_SYNC_DOMAIN=0"
            variant "r$r-2gpu-cga0" 2 "NCCL_CGA_CLUSTER_SIZE=0" ;;
          lastbucket)   # session 8: the step's tail is the all-reduce of the last bucket (conv2 + conv1 + BNs, 74 KB), waited
                        # for by the optimizer; --last-bucket-kib 4 leaves conv1 + bn1 alone there (1.4 KB) and conv2's
                        # all-reduce beside the rest of backward. --overlap-ctas N: the all-reduces beside backward through
                        # a second communicator of at most N CTAs (NCCL_MAX_CTAS limited all of them, tail included)
            variant "r$r-rec" 2 "A=1"
            variant "r$r-last4k" 2 "A=1" --last-bucket-kib 4
            variant "r$r-ctas4" 2 "A=1" --overlap-ctas 4
            variant "r$r-last4k-ctas4" 2 "A=1" --last-bucket-kib 4 --overlap-ctas 4
            variant "r$r-last4k-ctas8" 2 "A=1" --last-bucket-kib 4 --overlap-ctas 8 ;;
          ctas)         # session 8: the run's default is now --overlap-ctas 4 (after SWEEP=lastbucket); 0 (NCCL's choice), 2, 8
            variant "r$r-ctas4" 2 "A=1"
            variant "r$r-ctas0" 2 "A=1" --overlap-ctas 0
            variant "r$r-ctas2" 2 "A=1" --overlap-ctas 2
            variant "r$r-ctas8" 2 "A=1" --overlap-ctas 8 ;;
          split)        # the update of the already-averaged parameters beside the tail's all-reduce (the default from a715cc4)
            variant "r$r-rec" 2 "A=1"
            variant "r$r-hostcalls" 2 "A=1" --no-graph-collectives ;;
        esac
      done
      python3 "$(dirname "$0")/step_phases.py" "$work" | grep -v machine-warm-up | tee -a "$SUMMARY" ;;
    *) note "unknown step '$s' (junit, sweep)" ;;
  esac
done
left=$(pgrep -a java); if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/step-probe.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
