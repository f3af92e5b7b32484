#!/usr/bin/env bash
# Issue 5 (the CUDA backend) on one GPU in one short run, every figure next to PyTorch on the same GPU in the same run
# (about 4 minutes; a 2-GPU machine uses GPU 0 only):
#  1. kernels    bench-gpu --only bandwidth,variants: elementwise/reduction kernels on 256 MiB as % of the copy
#                bandwidth (all cases and the copy timed in interleaved rounds), and every kernel variant (transpose,
#                full reduction, column reduction) timed the same way and checked against the CPU; torch_peer.py's
#                bandwidth rows beside them (compare.py: the issue's >= 80% of copy)
#  2. gemm-calls one GEMM per cuBLAS route and TF32 setting with cuBLAS's API log and cuBLASLt's trace on, and one
#                torch.mm per TF32 setting logged the same way: which calls, math modes, workspace and kernel each side
#                gets (cublas_calls.py)
#  3. gemm       GEMM 4096^3 float32 and TF32, GEMM_ROUNDS alternating rounds (Java, PyTorch, Java, ...), each 1 s of
#                warm-up then the median of 30 samples of 10 back-to-back GEMMs; and the lesson CNN's training step
#                (batch 128) in TRAIN_ROUNDS alternating rounds; gemm_rounds.py: medians of the rounds, the targets
#                (GEMM >= 0.95x torch, train step >= 1.00x PyTorch eager)
#  4. memcheck   compute-sanitizer memcheck over the GPU tests that launch the kernels (cuda-sanitizer-check.sh with
#                SANITIZER_TOOLS=memcheck): errors, and how many of the kernels in native/ the run launched
# Each step has its own time limit, and a step that would start after BUDGET seconds (default 230) is skipped and
# says so. Summary: $OUT/summary.txt (also printed); every step's output in $OUT/cuda5-files.tgz beside it.
# Usage, from the repository root with the bundle unpacked: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/cuda5-check.sh
set -uo pipefail
here=$(dirname "$0")
source "$here/cuda-common.sh"
header "cuda5-check"
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"
BUDGET=${BUDGET:-230}
: "${GEMM_ROUNDS:=3}" "${TRAIN_ROUNDS:=3}"
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
torch_python
have_torch=0
"$PY" -c 'import torch' 2>/dev/null && have_torch=1
[ $have_torch = 1 ] || note "   no python3 with torch found (set PYTHON=...): the PyTorch side of every step is skipped"
# in_budget STEP: true while the run is within BUDGET seconds, else says the step is skipped
in_budget() {
  if [ "$SECONDS" -ge "$BUDGET" ]; then note "== $1: skipped (${SECONDS} s used of the ${BUDGET} s budget)"; return 1; fi
}
left() { local l=$((BUDGET + 20 - SECONDS)); [ "$l" -gt "$1" ] && l=$1; [ "$l" -lt 20 ] && l=20; echo "$l"; }

# 1. kernels ------------------------------------------------------------------------------------------------------
if in_budget kernels; then
  run kernels-java "$(left 90)" "$BUNDLE/bin/mpi2nccl" bench-gpu --only bandwidth,variants --json "$OUT/kernels-java.json"
  if [ $have_torch = 1 ]; then
    run kernels-torch "$(left 60)" "$PY" "$here/torch_peer.py" --only bandwidth --json "$OUT/kernels-torch.json"
  fi
  if [ -s "$OUT/kernels-java.json" ] && [ -s "$OUT/kernels-torch.json" ]; then
    "$PY" "$here/compare.py" "$OUT/kernels-java.json" "$OUT/kernels-torch.json" > "$OUT/kernels-compare.txt" 2>&1
    grep -E '^(bandwidth|targets)' "$OUT/kernels-compare.txt" | cut -c1-170 | sed 's/^/    /' | tee -a "$SUMMARY"
    grep -E '^bandwidth' "$OUT/kernels-java.txt" | cut -c1-200 | sed 's/^/    java: /' | tee -a "$SUMMARY"
  else
    grep -E '^bandwidth' "$OUT/kernels-java.txt" | cut -c1-170 | sed 's/^/    /' | tee -a "$SUMMARY"
  fi
  grep -E '^variant' "$OUT/kernels-java.txt" | cut -c1-190 | sed 's/^/    /' | tee -a "$SUMMARY"
fi

# 2. which cuBLAS calls each side makes ---------------------------------------------------------------------------
if in_budget gemm-calls; then
  CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG="$OUT/cublas-java.log" CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE="$OUT/cublaslt-java.log" \
    run gemm-calls-java "$(left 60)" "$BUNDLE/bin/mpi2nccl" bench-gpu --only gemm-calls
  calls=("java=$OUT/cublas-java.log,$OUT/cublaslt-java.log")
  if [ $have_torch = 1 ]; then
    CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG="$OUT/cublas-torch.log" CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE="$OUT/cublaslt-torch.log" \
      run gemm-calls-torch "$(left 60)" "$PY" "$here/torch_peer.py" --only gemm-calls
    calls+=("torch=$OUT/cublas-torch.log,$OUT/cublaslt-torch.log")
    grep -h 'preferred BLAS' "$OUT/gemm-calls-torch.txt" | head -1 | sed 's/^/    /' | tee -a "$SUMMARY"
  fi
  python3 "$here/cublas_calls.py" "${calls[@]}" > "$OUT/cublas-calls.txt" 2>&1
  cut -c1-220 "$OUT/cublas-calls.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
fi

# 3. GEMM and the train step in alternating rounds ----------------------------------------------------------------
rounds=()
for r in $(seq 1 "$GEMM_ROUNDS"); do
  in_budget "gemm round $r" || break
  run "gemm-java-$r" "$(left 60)" "$BUNDLE/bin/mpi2nccl" bench-gpu --only gemm --json "$OUT/gemm-java-$r.json" && rounds+=("$OUT/gemm-java-$r.json")
  [ $have_torch = 1 ] && run "gemm-torch-$r" "$(left 60)" "$PY" "$here/torch_peer.py" --only gemm --json "$OUT/gemm-torch-$r.json" \
    && rounds+=("$OUT/gemm-torch-$r.json")
done
for r in $(seq 1 "$TRAIN_ROUNDS"); do
  in_budget "train round $r" || break
  run "train-java-$r" "$(left 60)" "$BUNDLE/bin/mpi2nccl" bench-gpu --only train --json "$OUT/train-java-$r.json" && rounds+=("$OUT/train-java-$r.json")
  [ $have_torch = 1 ] && run "train-torch-$r" "$(left 60)" "$PY" "$here/torch_peer.py" --only train --json "$OUT/train-torch-$r.json" \
    && rounds+=("$OUT/train-torch-$r.json")
done
if [ ${#rounds[@]} -gt 0 ]; then
  python3 "$here/gemm_rounds.py" "${rounds[@]}" > "$OUT/rounds.txt" 2>&1
  cut -c1-230 "$OUT/rounds.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
fi

# 4. compute-sanitizer memcheck over the kernel tests -------------------------------------------------------------
if in_budget memcheck; then
  limit=$(left 150)
  run memcheck "$limit" env SANITIZER_TOOLS=memcheck SANITIZER_LIMIT=$((limit - 10)) OUT="$OUT/sanitizer" BUNDLE="$BUNDLE" \
    bash "$here/cuda-sanitizer-check.sh"
  grep -E '^ +(memcheck|[0-9]+ ====)|^== sanitizer' "$OUT/sanitizer/summary.txt" 2>/dev/null | cut -c1-400 | sed 's/^ */    /' | tee -a "$SUMMARY"
fi

if pgrep -af -- "$BUNDLE/" | grep -v pgrep; then note "LEFTOVER PROCESSES (above)"; else note "no leftover processes"; fi
# the device machine hands back only a few files: every step's output in one archive beside the summary
archive=$(mktemp /tmp/cuda5-files.XXXXXX)
if [ -n "$OUT" ] && [ "$OUT" != / ] && tar czf "$archive" -C "$OUT" . 2>/dev/null && mv "$archive" "$OUT/cuda5-files.tgz"; then
  find "$OUT" -mindepth 1 -not -path "$OUT/summary.txt" -not -path "$OUT/cuda5-files.tgz" -delete
  note "every step's output: $OUT/cuda5-files.tgz"
fi
note "done in ${SECONDS} s: $OUT"
