#!/usr/bin/env bash
# Session 6's GPU runs on the 2-GPU machine:
#   presence  results/device/nccl-presence: cuBLAS GEMMs timed before and after a 1-rank ncclCommInitAll, with the
#             CUDA limits NCCL may change (why one GPU trains 1.7-2.5% slower once NCCL is initialised); 20 s
#   junit     every GPU JUnit test, about 2 minutes; a failure skips the steps after it
#   cifar     dist-check.sh cifar (ROUNDS rounds, default 2, both DDP loaders), about 3.5 minutes
#   fashion   dist-check.sh fashion (Fashion-MNIST carried in data/), about 4 minutes
# Usage: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/s6-check.sh [presence] [junit] [cifar] [fashion]
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
      rc=$?
      junit_totals "$OUT/junit.txt"
      grep -E '✘|=> ' "$OUT/junit.txt" | head -20 | cut -c1-300 | sed 's/^/   /' | tee -a "$SUMMARY"
      [ $rc = 0 ] || { note "junit failed: the steps after it are skipped"; break; } ;;
    cifar|fashion)
      BUNDLE=$BUNDLE OUT=$work/dist-$s ROUNDS=${ROUNDS:-2} bash "$(dirname "$0")/dist-check.sh" $s > "$work/dist-$s.console.txt" 2>&1
      grep -E '^==|speedup|target|contrast' "$work/dist-$s/summary.txt" | grep -v machine-warm | cut -c1-220 | tee -a "$SUMMARY" ;;
  esac
done
left=$(pgrep -a java); if [ -n "$left" ]; then note "LEFTOVER PROCESSES:"; note "$left"; else note "no leftover processes"; fi
tar czf "$OUT/s6.tgz" -C "$work" . 2>/dev/null
note "done: $OUT"
