#!/usr/bin/env bash
# compute-sanitizer memcheck over every kernel the CUDA backend launches (the Backend contract and the fused
# ops, small sizes): out-of-bounds and misaligned accesses and CUDA API errors, in the JVM that runs them.
# About 1-3 minutes. Run from the repository root with the bundle at ./bundle (or $BUNDLE); results under $OUT.
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "cuda-sanitizer-check"
CS=$(command -v compute-sanitizer || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -z "$CS" ] && [ -x "$c" ] && CS=$c
done
if [ -z "$CS" ]; then
  note "== sanitizer: skipped (compute-sanitizer not found in PATH or /usr/local/cuda)"
  exit 0
fi
JUNIT_REPORTS="$OUT/junit-sanitizer" run sanitizer-memcheck 220 "$CS" --tool memcheck --target-processes all \
  --error-exitcode 86 --print-limit 100 "$BUNDLE/bin/mpi2nccl-test" --disable-ansi-colors --include-classname "$KERNEL_TESTS"
rc=$?
grep -E 'ERROR SUMMARY' "$OUT/sanitizer-memcheck.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
junit_totals "$OUT/sanitizer-memcheck.txt"
note "done: $OUT"
exit $rc
