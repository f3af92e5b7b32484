#!/usr/bin/env bash
# Runs NcclPresence (compiled into build/nccl-presence) with the bundle's Java and libraries; about 20 s on one GPU.
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/nccl-presence/run.sh
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source "$BUNDLE/bin/env.sh"
timeout 120 java --enable-native-access=ALL-UNNAMED -cp "build/nccl-presence:$BUNDLE/lib/*" NcclPresence 2>&1 | tee "$OUT/nccl-presence.txt"
