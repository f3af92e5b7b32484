#!/usr/bin/env bash
# The CUDA backend's benchmarks next to PyTorch on the same GPU in the same run (about 3 minutes):
# GEMM 4096^3 float32 and TF32 vs torch.mm (cuBLAS), elementwise/reduction kernels on 256 MiB vs the copy
# bandwidth, host<->GPU staging (pageable,
# pinned, pinned + Java array copy), one training step of the lesson CNN vs PyTorch eager. compare.py prints
# both side by side with the targets. Then GEMM alone in GEMM_ROUNDS alternating rounds (Java, PyTorch,
# Java, ...), each with 1 s of warm-up and the median of 30 samples: gemm_rounds.py prints each side's median.
# Run from the repository root with the bundle at ./bundle (or $BUNDLE); results under $OUT.
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "cuda-bench"
run bench-java 300 "$BUNDLE/bin/mpi2nccl" bench-gpu --json "$OUT/bench-java.json"
torch_python
if "$PY" -c 'import torch' 2>/dev/null; then
  run bench-torch 200 "$PY" "$(dirname "$0")/torch_peer.py" --json "$OUT/bench-torch.json"
  if [ -s "$OUT/bench-java.json" ] && [ -s "$OUT/bench-torch.json" ]; then
    "$PY" "$(dirname "$0")/compare.py" "$OUT/bench-java.json" "$OUT/bench-torch.json" > "$OUT/compare.txt" 2>&1
    sed 's/^/    /' "$OUT/compare.txt" | tee -a "$SUMMARY"
  fi
  note "== gemm rounds (${GEMM_ROUNDS:=3} each side, alternating)"
  rounds=()
  for r in $(seq 1 "$GEMM_ROUNDS"); do
    run "gemm-java-$r" 120 "$BUNDLE/bin/mpi2nccl" bench-gpu --only gemm --json "$OUT/gemm-java-$r.json" && rounds+=("$OUT/gemm-java-$r.json")
    run "gemm-torch-$r" 120 "$PY" "$(dirname "$0")/torch_peer.py" --only gemm --json "$OUT/gemm-torch-$r.json" && rounds+=("$OUT/gemm-torch-$r.json")
  done
  "$PY" "$(dirname "$0")/gemm_rounds.py" "${rounds[@]}" > "$OUT/gemm-rounds.txt" 2>&1
  sed 's/^/    /' "$OUT/gemm-rounds.txt" | tee -a "$SUMMARY"
else
  note "== bench-torch: skipped (no python3 with torch found; set PYTHON=/path/to/python)"
  grep -E 'GB/s|TFLOP|samples' "$OUT/bench-java.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
fi
note "done: $OUT"
