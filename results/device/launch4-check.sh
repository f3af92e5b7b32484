#!/usr/bin/env bash
# Issue 7, the host's cost per kernel launch (helper launch4): kernels through JavaCPP's cuLaunchKernel with their
# arguments packed into one reusable native block (LaunchRoute.JAVACPP, MPI2NCCL_JCUDA_LAUNCH=0) instead of JCuda's
# (a Java array per argument, pinned per launch; MPI2NCCL_JCUDA_LAUNCH=1). JavaCPP is the default since this check
# passed at b745d5f (results under /work/gpu-results/launch4/ in session 4).
# Every Java run below names its route explicitly. One run of about 3-5 minutes on GPU 0:
#   1. launch      bench-gpu --only launch,train with the JavaCPP route: host microseconds per launch through each
#                  route in the same JVM (fill_f32 3 args, batchnorm_apply_f32 10 args, sgd_steps_f32 a 520-byte
#                  struct; 256 launches queued per sample, GPU time per launch from events; each case checks its
#                  result), then the lesson CNN step (batch 128): synchronized step time, and 8 steps queued: host time
#                  to queue vs GPU time
#   2. train-jcuda bench-gpu --only train through JCuda, then train-javacpp-2 through JavaCPP again (A/B/A, so a drift
#                  of the machine shows)
#   3. junit       with the JavaCPP route: every GPU JUnit test of the cuda and tensor packages (LaunchRouteGpuTest
#                  compares both routes on every argument kind), dist.StepWorkCountGpuTest and dist.StepGraphsGpuTest
#                  (launches recorded into CUDA graphs): they launch every kernel, results checked against the CPU
# Usage, from the repository root with the bundle unpacked: BUNDLE=/tmp/bundle OUT=/tmp/launch4 bash results/device/launch4-check.sh
# Results: $OUT/summary.txt (also printed); every step's output in $OUT/launch4-files.tgz beside it.
set -uo pipefail
here=$(dirname "$0")
OUT=${OUT:-/tmp/launch4-check}
source "$here/cuda-common.sh"
header "launch4-check"
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
bench_rows() { grep -E "^($2) " "$1" | cut -c1-200 | sed 's/^/    /' | tee -a "$SUMMARY"; }

# 1. host cost per launch, both routes, and the training step (JavaCPP route) ---------------------------------
run launch 150 env MPI2NCCL_JCUDA_LAUNCH=0 "$BUNDLE/bin/mpi2nccl" bench-gpu --only launch,train --json "$OUT/launch.json"
grep -E '^kernel launches:' "$OUT/launch.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
bench_rows "$OUT/launch.txt" 'launch|train'
grep -E 'Exception|Error' "$OUT/launch.txt" | head -5 | cut -c1-300 | sed 's/^/    /' | tee -a "$SUMMARY"

# 2. the training step through the old route, then the new one again ------------------------------------------------
run train-jcuda 90 env MPI2NCCL_JCUDA_LAUNCH=1 "$BUNDLE/bin/mpi2nccl" bench-gpu --only train --json "$OUT/train-jcuda.json"
grep -E '^kernel launches:' "$OUT/train-jcuda.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
bench_rows "$OUT/train-jcuda.txt" 'train'
run train-javacpp-2 90 env MPI2NCCL_JCUDA_LAUNCH=0 "$BUNDLE/bin/mpi2nccl" bench-gpu --only train --json "$OUT/train-javacpp-2.json"
bench_rows "$OUT/train-javacpp-2.txt" 'train'

# 3. the GPU tests that launch every kernel (JavaCPP route) ---------------------------------------------------
run junit 400 env MPI2NCCL_JCUDA_LAUNCH=0 JUNIT_REPORTS="$OUT/junit" "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu \
    --include-classname 'org\.mpi2nccl\.(cuda|tensor)\..*|org\.mpi2nccl\.dist\.(StepWorkCountGpuTest|StepGraphsGpuTest)'
grep -E 'kernel launches|no GPU|MethodSource|AssertionFailed|Exception' "$OUT/junit.txt" | head -12 | cut -c1-300 | sed 's/^/    /' | tee -a "$SUMMARY"
junit_totals "$OUT/junit.txt"

archive=$(mktemp /tmp/launch4-files.XXXXXX.tgz)
if tar czf "$archive" -C "$OUT" --exclude=launch4-files.tgz . 2>/dev/null && mv "$archive" "$OUT/launch4-files.tgz"; then
  note "done in $SECONDS s: $OUT/summary.txt, every output in $OUT/launch4-files.tgz"
else
  rm -f "$archive"
  note "done in $SECONDS s: $OUT/summary.txt (the archive could not be written)"
fi
