#!/usr/bin/env bash
# The CUDA backend's benchmarks next to PyTorch on the same GPU in the same run (about 1-2 minutes):
# GEMM 4096^3 float32 and TF32 vs torch.mm (cuBLAS), elementwise/reduction kernels on 256 MiB vs the copy
# bandwidth, host<->GPU staging (pageable, pinned, pinned + Java array copy), one training step of the lesson
# CNN vs PyTorch eager. compare.py prints both side by side with the issue's targets.
# Run from the repository root with the bundle at ./bundle (or $BUNDLE); results under $OUT.
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "cuda-bench-check"
run bench-java 200 "$BUNDLE/bin/mpi2nccl" bench-gpu --json "$OUT/bench-java.json"
PY=${PYTHON:-python3}
if ! "$PY" -c 'import torch' 2>/dev/null; then
  for p in /opt/torch/.venv/bin/python3 /opt/*/.venv/bin/python3; do "$p" -c 'import torch' 2>/dev/null && { PY=$p; break; }; done
fi
if "$PY" -c 'import torch' 2>/dev/null; then
  run bench-torch 200 "$PY" "$(dirname "$0")/torch_peer.py" --json "$OUT/bench-torch.json"
  if [ -s "$OUT/bench-java.json" ] && [ -s "$OUT/bench-torch.json" ]; then
    "$PY" "$(dirname "$0")/compare.py" "$OUT/bench-java.json" "$OUT/bench-torch.json" > "$OUT/compare.txt" 2>&1
    sed 's/^/    /' "$OUT/compare.txt" | tee -a "$SUMMARY"
  fi
else
  note "== bench-torch: skipped (no python3 with torch found; set PYTHON=/path/to/python)"
  grep -E 'GB/s|TFLOP|samples' "$OUT/bench-java.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
fi
note "done: $OUT"
