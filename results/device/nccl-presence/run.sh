#!/usr/bin/env bash
# Runs the NCCL-presence probes (compiled into build/nccl-presence) with the bundle's Java and libraries; about 90 s on
# one GPU. Usage: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/nccl-presence/run.sh
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source "$BUNDLE/bin/env.sh"
java_run() { timeout 300 java --enable-native-access=ALL-UNNAMED -cp "build/nccl-presence:$BUNDLE/lib/*" "$@" 2>&1 | grep -v WARN; }
# cuBLAS GEMMs before and after ncclCommInitAll, and the CUDA limits
java_run NcclPresence | tee "$OUT/nccl-presence.txt"
# the lesson CNN trained before, during and after a 1-rank NCCL communicator, then in fresh processes by init order
{ java_run PresenceTraining; for m in plain nccl-first nccl-initrank plain nccl-first nccl-initrank; do java_run PresenceTraining $m; done; } \
  | tee "$OUT/presence-training.txt"
