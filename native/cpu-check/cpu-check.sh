#!/usr/bin/env bash
# Compiles the streaming kernels of native/ (elementwise, fill, reductions incl. the one-pass ones, the tiled
# transpose) for the CPU with cuda_on_cpu.h and runs kernel_check.cpp: their index arithmetic checked
# without a GPU. About 25 s of CPU.
#   native/cpu-check/cpu-check.sh          g++, UBSan alignment checks (a misaligned float4 stops it)
#   native/cpu-check/cpu-check.sh --asan   also AddressSanitizer + all of UBSan (slow: 10-20 min on 2 busy cores)
# Output: one line per kernel group, then "kernel-check: N cases, 0 failures"; exit status 1 on a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CXX=${CXX:-g++}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-std=c++20 -O1 -fsanitize=alignment -fno-sanitize-recover=alignment)
if [ "${1:-}" = "--asan" ]; then
  flags=(-std=c++20 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined)
fi
"$CXX" "${flags[@]}" -I"$here/.." -o "$out/kernel_check" "$here/kernel_check.cpp"
"$out/kernel_check"
