#!/usr/bin/env bash
# Session 7's GPU runs on the 2-GPU machine (issue 7):
#   junit     every GPU JUnit test at this commit, about 2 minutes; a failure skips the steps after it
#   presence  the lesson CNN in fresh processes: no NCCL, NCCL by ncclCommInitRank (the route's own path, without MPJ),
#             NCCL by ncclCommInitAll (build/nccl-presence compiled and carried: see nccl-presence/run.sh); 1 minute
#   route1    step-probe SWEEP=route1 on the CIFAR-shaped set: one GPU on the MPI route (no communicator) and on the
#             NCCL route (a 1-rank communicator), on GPU 0 and GPU 1, with the GPUs' clocks sampled; 2 minutes
#   routeprobe  nccl-presence/RouteProbe in MPJ rank processes (mpjrun -np 1): no NCCL, NCCL over MPJ (the route's
#             path), NCCL by its own unique id, NCCL after the first GPU allocation, NCCL set up but unused; 2 minutes
#   evalprobe RouteProbe's eval-* modes: 16 epochs, evaluation (or only its averaging, or only its forward passes)
#             every 2, over NCCL or not; 1 minute
#   carveout  MPI2NCCL_SMEM_CARVEOUT=0 (our kernels ask for the most L1) against none asked: RouteProbe avg-nccl and
#             eval-plain, then step-probe SWEEP=carveout (1 and 2 GPUs); 4 minutes
#   gradsum   RouteProbe avg-nccl (ncclAvg alone slows the GPU?), with the persisting-L2 lines reset, eval-nccl (one rank
#             no longer averages); step-probe SWEEP=gradsum (2 GPUs summing, not averaging, the buckets); 3 minutes
#   ncclenv   RouteProbe avg-nccl and 2 GPUs with NCCL_MEM_SYNC_DOMAIN=0, NCCL_CGA_CLUSTER_SIZE=0; 3 minutes
#   modload   (not run yet) RouteProbe with CUDA_MODULE_LOADING=EAGER, after a single ncclAvg, and with NCCL on a
#             non-blocking stream: is the slowdown the NCCL kernels' code resident on the GPU, or its stream? 2 minutes
#   distjunit DataParallelGpuTest and StepGraphsGpuTest (the 2-GPU proofs); 1 minute
#   cifar, fashion  dist-check.sh (ROUNDS rounds, default 2; Fashion-MNIST carried in data/); 3.5 and 4 minutes
#   threads   one GPU, MPI route then NCCL route, 8 epochs each, with the rank JVM's busy threads sampled every second
#             (thread_cpu.py); 1.5 minutes
#   settle    step-probe SWEEP=settle on the CIFAR-shaped set: 2 GPUs with the epoch barrier, with GC logged, with
#             ParallelGC (is a rank late to epoch 2 any more?); 2 minutes
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/s7-check.sh [junit] [presence] [routeprobe] [evalprobe] [carveout] [gradsum] [ncclenv] [modload] [distjunit] [cifar] [fashion] [threads] [route1] [settle]
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/s7}
here=$(dirname "$0")
work=$OUT/work; mkdir -p "$work"
source "$here/cuda-common.sh"
header s7-check
CIFAR="--data synthetic-cifar"
# route_probe FILE TITLE [ENV=VALUE:]MODE...: nccl-presence/RouteProbe MODE in a 1-rank MPJ job each (build/nccl-presence
# compiled and carried), with ENV set where given; the timings to the summary
route_probe() {
  local file=$1 title=$2 v; shift 2
  for v in "$@"; do
    local vars=A=1 mode=$v
    [[ $v == *:* ]] && { vars=${v%%:*}; mode=${v#*:}; }
    echo "== $vars $mode"
    env $vars timeout --kill-after=10 120 "$BUNDLE/bin/mpi2nccl" mpjrun -np 1 --device niodev --timeout 100s \
        -cp "build/nccl-presence:$BUNDLE/lib/*" RouteProbe $mode 2>&1 | grep -v WARN
  done > "$work/$file" 2>&1
  note "== $title:"
  grep -E '^==|us/step|after the averages|Exception|failed' "$work/$file" | cut -c1-200 | sed 's/^/   /' | tee -a "$SUMMARY"
}
# probe_sweep SWEEP: step-probe.sh's sweep of that name on the CIFAR-shaped set (EPOCHS 4, ROUNDS 2 unless set)
probe_sweep() {
  BUNDLE=$BUNDLE OUT=$work/probe-$1 SWEEP=$1 DATA="$CIFAR" EPOCHS=${EPOCHS:-4} ROUNDS=${ROUNDS:-2} \
      bash "$here/step-probe.sh" sweep > "$work/probe-$1.console.txt" 2>&1
  grep -v '^step-probe' "$work/probe-$1/summary.txt" | grep -v 'replayed from' | cut -c1-260 | tee -a "$SUMMARY"
}
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(junit presence route1)
for s in "${steps[@]}"; do
  case $s in
    junit)
      JUNIT_REPORTS="$work/junit" run junit 300 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-tag gpu
      rc=$?
      cp "$OUT/junit.txt" "$work/" 2>/dev/null
      junit_totals "$OUT/junit.txt"
      grep -E '✘|=> ' "$OUT/junit.txt" | head -20 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY"
      [ $rc = 0 ] || { note "junit failed: the steps after it are skipped"; break; } ;;
    presence)
      ( source "$BUNDLE/bin/env.sh"
        for m in plain nccl-initrank nccl-first plain nccl-initrank; do
          timeout 120 java --enable-native-access=ALL-UNNAMED -cp "build/nccl-presence:$BUNDLE/lib/*" PresenceTraining $m 2>&1 | grep -v WARN
        done ) > "$work/presence-order.txt" 2>&1
      note "== presence (fresh processes, us per step):"
      sed 's/^/   /' "$work/presence-order.txt" | tee -a "$SUMMARY" ;;
    routeprobe)
      route_probe route-probe.txt "route probe (MPJ rank processes, us per step)" \
          mpj-plain mpj-overhost mpj-initrank mpj-late mpj-unused mpj-plain mpj-overhost mpj-initrank mpj-late mpj-unused ;;
    evalprobe)
      route_probe eval-probe.txt "eval probe (MPJ rank processes; after every 2 epochs: evaluation or part of it; us per step)" \
          eval-plain eval-nccl avg-nccl evalfwd-nccl eval-nccl eval-plain ;;
    carveout)       # (run with the bundle of 45cb75f: MPI2NCCL_SMEM_CARVEOUT is gone since)
      route_probe carveout-probe.txt "carveout probe (RouteProbe; after every 2 epochs NCCL's averaging or the evaluation; us per step)" \
          avg-nccl MPI2NCCL_SMEM_CARVEOUT=0:avg-nccl MPI2NCCL_SMEM_CARVEOUT=100:eval-plain MPI2NCCL_SMEM_CARVEOUT=0:eval-plain
      probe_sweep carveout ;;
    gradsum)        # (run with the bundle of 40bd6b6: MPI2NCCL_PROBE_GRADIENT_SUM is gone since)
      route_probe avg-probe.txt "ncclAvg probe (RouteProbe; after every 2 epochs ncclAvg of the BN statistics, or the evaluation; us per step)" \
          avg-nccl avg-nccl-l2reset eval-nccl
      probe_sweep gradsum ;;
    ncclenv)
      route_probe ncclenv-probe.txt "NCCL settings probe (RouteProbe avg-nccl: after every 2 epochs ncclAvg of the BN statistics; us per step)" \
          avg-nccl NCCL_MEM_SYNC_DOMAIN=0:avg-nccl NCCL_CGA_CLUSTER_SIZE=0:avg-nccl avg-nccl-l2reset
      probe_sweep ncclenv ;;
    modload)
      # next: is it the NCCL kernels' code being resident? CUDA loads a module lazily, at its first kernel launch (a
      # 1-rank ncclAvg launches one; a 1-rank broadcast or in-place sum launches none): load every module eagerly
      route_probe modload-probe.txt "module-loading probe (RouteProbe; us per step)" \
          mpj-plain CUDA_MODULE_LOADING=EAGER:mpj-plain CUDA_MODULE_LOADING=EAGER:mpj-overhost mpj-overhost avg1-nccl avg-nccl-nbstream ;;
    distjunit)
      JUNIT_REPORTS="$work/junit-dist" run junit-dist 200 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors \
          --select-class org.mpi2nccl.dist.DataParallelGpuTest --select-class org.mpi2nccl.dist.StepGraphsGpuTest
      cp "$OUT/junit-dist.txt" "$work/" 2>/dev/null
      junit_totals "$OUT/junit-dist.txt" ;;
    cifar|fashion)
      BUNDLE=$BUNDLE OUT=$work/dist-$s ROUNDS=${ROUNDS:-2} bash "$here/dist-check.sh" $s > "$work/dist-$s.console.txt" 2>&1
      grep -E '^==|speedup|target|contrast|accuracy' "$work/dist-$s/summary.txt" | grep -v machine-warm | cut -c1-220 | tee -a "$SUMMARY" ;;
    threads)
      # the rank JVM's busy threads, sampled each second through a 1-GPU run of each route (8 epochs: the NCCL route's
      # rank got 1.5% slower GPU work from its third epoch on in earlier runs)
      for route in mpi nccl; do
        python3 "$here/thread_cpu.py" 45 1 > "$work/threads-$route.txt" 2>&1 & sampler=$!
        timeout --kill-after=10 120 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes $route --ranks 1 --epochs 8 \
            --batch-per-rank 128 $CIFAR --out "$work/threads-$route" > "$work/threads-$route.log" 2>&1
        kill $sampler 2>/dev/null; wait $sampler 2>/dev/null
        note "== threads, $route route, 1 GPU: per epoch (forward, backward us per step), then the busy threads"
        python3 - "$work/threads-$route/ranks.csv" <<'PY' | tee -a "$SUMMARY"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print("   epoch %s: %.4f s, forward %.1f, backward %.1f" % (r["epoch"], float(r["epoch_s"]), float(r["forward_s"]) / 391e-6, float(r["backward_s"]) / 391e-6))
PY
        cut -c1-250 "$work/threads-$route.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
      done ;;
    route1|settle)
      probe_sweep $s ;;
    *) note "unknown step '$s' (junit presence routeprobe evalprobe carveout gradsum ncclenv modload distjunit cifar fashion threads route1 settle)" ;;
  esac
done
left=$(pgrep -a java); if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/s7.tgz" -C "$work" --exclude='*.smi.csv' . 2>/dev/null
tar czf "$OUT/s7-smi.tgz" -C "$work" $(cd "$work" && find . -name '*.smi.csv') 2>/dev/null
note "done: $OUT"
