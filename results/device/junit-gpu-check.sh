#!/usr/bin/env bash
# Every JUnit test tagged "gpu", for real on the GPU machine (they skip themselves elsewhere).
set -uo pipefail
JUNIT_REPORTS="$OUT/junit" "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu "$@" 2>&1 | tee "$OUT/junit-gpu.txt"
exit "${PIPESTATUS[0]}"
