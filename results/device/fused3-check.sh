#!/usr/bin/env bash
# Issue 7, host cost of a training step (helper fused3), in one run of about 4-5 minutes on the 2-GPU machine:
#   1. junit    the GPU tests of the fused training layers and the launch counter:
#               StepWorkCountGpuTest (kernel launches, cuBLAS calls, allocations per lesson-CNN step: printed),
#               CudaBackendContractTest (batch norm, cross-entropy, batch metrics, multi-tensor SGD against plain
#               Java), CudaFusedOpsTest, CudaGradientsTest, DataParallelGpuTest (2 GPUs == 1 GPU, NCCL and MPI)
#   2. fashion, cifar  the speedup experiment + PyTorch DDP peer on Fashion-MNIST and the CIFAR-shaped synthetic set
#               (results/device/dist-check.sh fashion cifar; EPOCHS, CIFAR_EPOCHS)
# Usage, from the repository root (bundle unpacked at $BUNDLE, Fashion-MNIST carried in data/fashion-mnist):
#   BUNDLE=/tmp/bundle OUT=/tmp/fused3 EPOCHS=8 bash results/device/fused3-check.sh
# Results: $OUT/summary.txt (launches per step, speedups, DDP's), $OUT/junit.txt, $OUT/dist/ (dist-check's output).
set -uo pipefail
BUNDLE=${BUNDLE:-bundle}
OUT=${OUT:-/tmp/fused3-check}
export EPOCHS=${EPOCHS:-8} CIFAR_EPOCHS=${CIFAR_EPOCHS:-3}
mkdir -p "$OUT"
[ -x "$BUNDLE/bin/mpi2nccl" ] || { echo "no bundle at $BUNDLE (set BUNDLE=/path/to/bundle)"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
SUMMARY="$OUT/summary.txt"
note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
note "fused3-check $(date -u +%FT%TZ) on $(hostname); bundle built from $(cat "$BUNDLE/COMMIT" 2>/dev/null || echo '? (no COMMIT file)')"
t0=$SECONDS
JUNIT_REPORTS="$OUT/junit" timeout --kill-after=10 300 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu \
    --include-classname 'org\.mpi2nccl\.(dist\.(StepWorkCountGpuTest|DataParallelGpuTest)|cuda\.(CudaFusedOpsTest|CudaGradientsTest|DeviceMemoryViewTest|TrainingLoopMemoryTest|CudaRuntimeTest|BlockCacheGpuTest)|tensor\.CudaBackendContractTest)' \
    > "$OUT/junit.txt" 2>&1
note "== junit: exit $? in $((SECONDS - t0)) s -> $OUT/junit.txt"
grep -E 'kernel launches|max relative difference|skipped|tests (successful|failed|found)|AssertionFailed|Exception' "$OUT/junit.txt" | head -20 | cut -c1-600 | sed 's/^/   /' | tee -a "$SUMMARY"
BUNDLE="$BUNDLE" OUT="$OUT/dist" bash "$here/dist-check.sh" fashion cifar
sed 's/^/   /' "$OUT/dist/summary.txt" >> "$SUMMARY"
note "done in $((SECONDS - t0)) s: $OUT"
