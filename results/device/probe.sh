#!/usr/bin/env bash
# First look at a GPU machine through the bundle. Run from the repo root on the GPU machine, with the
# bundle unpacked at $BUNDLE (default /tmp/bundle) and Probe.class in build/probe. Writes $OUT/probe.txt.
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
{
  nvidia-smi -L; nvidia-smi topo -m 2>&1 | head -5
  source "$BUNDLE/bin/env.sh"; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  java -version 2>&1 | head -1
  timeout 120 java --enable-native-access=ALL-UNNAMED -cp "build/probe:$BUNDLE/lib/*" Probe 2>&1
  echo "probe rc=$?"
  timeout 60 "$BUNDLE/bin/mpi2nccl-test" 2>&1 | tail -4
} 2>&1 | tee "$OUT/probe.txt"
