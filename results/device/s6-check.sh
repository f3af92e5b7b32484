#!/usr/bin/env bash
# Session 6's first GPU run on the 2-GPU machine (about 3 minutes):
#   presence  results/device/nccl-presence: cuBLAS GEMMs timed before and after a 1-rank ncclCommInitAll, with the
#             CUDA limits NCCL may change (why one GPU trains 1.7-2.5% slower once NCCL is initialised)
#   junit     every GPU JUnit test (the commits after 5762928 had not run on a GPU)
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/s6-check.sh [presence] [junit]
# (presence needs build/nccl-presence compiled and carried: see nccl-presence/run.sh)
set -uo pipefail
BUNDLE=${BUNDLE:-/tmp/bundle}; OUT=${OUT:-/tmp/s6}
work=$OUT/work; mkdir -p "$work"
source "$(dirname "$0")/cuda-common.sh"
header s6-check
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(presence junit)
for s in "${steps[@]}"; do
  case $s in
    presence)
      BUNDLE=$BUNDLE OUT=$work run presence 150 bash "$(dirname "$0")/nccl-presence/run.sh"
      sed 's/^/   /' "$work/nccl-presence.txt" | grep -vi 'warn' | head -30 | tee -a "$SUMMARY" ;;
    junit)
      JUNIT_REPORTS="$work/junit" run junit 500 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-tag gpu
      cp "$OUT/junit.txt" "$work/" 2>/dev/null
      junit_totals "$OUT/junit.txt"
      grep -E '✘|=> ' "$OUT/junit.txt" | head -20 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY" ;;
  esac
done
left=$(pgrep -a java); if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/s6.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
