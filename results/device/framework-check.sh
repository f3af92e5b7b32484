#!/usr/bin/env bash
# The deep-learning core (tensor/autograd/nn/optim/data) end to end on the GPU (about 1-2 minutes): the
# train-fashion-mnist benchmark of issue 4 on cuda:0 with the same seeds and hyper-parameters as the CPU runs
# recorded in results/cpu/, so the two tables can be read side by side (same seed -> same initial weights on
# both devices: the counter-based generator), and bench-matmul on cuda:0.
# Fashion-MNIST is not on the GPU machine: carry a copy in the git-ignored data/ folder
#   mkdir -p data && cp -r /usr/share/datasets/fashion-mnist data/      (30 MB; carry "data")
# or point FASHION_DIR at it; without it the training steps are skipped, saying so.
# Run from the repository root with the bundle at ./bundle (or $BUNDLE); results under $OUT.
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
FASHION_DIR=${FASHION_DIR:-$PWD/data/fashion-mnist}
header "framework-check"
run matmul-cuda 120 "$BUNDLE/bin/mpi2nccl" bench-matmul --device cuda:0 --size 4096 --repeat 20 --python none
grep -E 'GFLOP' "$OUT/matmul-cuda.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
if [ -f "$FASHION_DIR/train-images-idx3-ubyte.gz" ]; then
  run mlp-cuda 150 "$BUNDLE/bin/mpi2nccl" train-fashion-mnist --model mlp --epochs 3 --device cuda:0 --data "$FASHION_DIR"
  grep -E '^ +[0-9]+ |total training' "$OUT/mlp-cuda.txt" | sed 's/^/    mlp /' | tee -a "$SUMMARY"
  run cnn-cuda 200 "$BUNDLE/bin/mpi2nccl" train-fashion-mnist --model cnn --channels 16,32 --epochs 8 --batch-size 64 \
      --lr 0.002 --lr-decay 0.75 --device cuda:0 --data "$FASHION_DIR"
  grep -E '^ +[0-9]+ |total training' "$OUT/cnn-cuda.txt" | sed 's/^/    cnn /' | tee -a "$SUMMARY"
else
  note "== training: skipped (no Fashion-MNIST at $FASHION_DIR; see the comment at the top of this script)"
fi
note "done: $OUT"
