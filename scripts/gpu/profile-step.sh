#!/usr/bin/env bash
# Where the host's time goes in a GPU training step: the speedup experiment's rank JVMs (1 GPU, then 2) under
# Java Flight Recorder (the bundle's runtime carries jdk.jfr), one recording per rank JVM. Read them where a JDK
# is: `jfr print --events jdk.ExecutionSample,jdk.NativeMethodSample FILE` or `jfr summary FILE`.
# Usage, from the repository root with the bundle unpacked (about 1 minute on 2 GPUs):
#   BUNDLE=/tmp/bundle OUT=/tmp/out bash scripts/gpu/profile-step.sh [EXTRA mpi2nccl run OPTIONS...]
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/profile}; mkdir -p "$OUT/jfr"
[ -x "$BUNDLE/bin/mpi2nccl" ] || { echo "no bundle at $BUNDLE (set BUNDLE=/path/to/bundle)"; exit 2; }
# %p: one file per rank JVM (pid); settings=profile samples Java stacks every 10 ms and native ones every 20 ms
export MPI2NCCL_RANK_JAVA_OPTS="-XX:StartFlightRecording=filename=$OUT/jfr/rank-%p.jfr,settings=profile,dumponexit=true ${MPI2NCCL_RANK_JAVA_OPTS:-}"
timeout --kill-after=10 300 "$BUNDLE/bin/mpi2nccl" run --device cuda --routes nccl --ranks 1,2 --epochs 3 \
    --batch-per-rank 128 --data synthetic-cifar --train-examples 30000 --test-examples 2000 --out "$OUT/run" "$@" \
    > "$OUT/run.txt" 2>&1
echo "run: exit $? ($(ls "$OUT/jfr" | wc -l) recordings)"
sed -n '/^Summary/,/^(phase/p' "$OUT/run.txt"
