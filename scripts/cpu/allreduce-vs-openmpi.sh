#!/usr/bin/env bash
# The CPU all-reduce against Open MPI, in one run on this machine: all-reduce of float32 sums on 2 ranks at
# 1 / 4 / 16 / 64 MiB through the toolkit (MPJ Express's own Allreduce; the hand-written ring over MPJ
# point-to-point and over shared memory; MPJ multicore and niodev) and through Open MPI (mpi4py_allreduce.py on
# Debian's openmpi-bin, python3-mpi4py and python3-numpy, installed here when missing), then the busbw ratio of
# each toolkit route to Open MPI. Writes $OUT/{toolkit-*,openmpi.csv,compare*} (OUT=build/cpu-allreduce by default).
#   bash scripts/cpu/allreduce-vs-openmpi.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$ROOT"
bash "$ROOT/scripts/setup.sh" || exit 1
apt_install openmpi $(missing_debs openmpi-bin python3-mpi4py python3-numpy)
OUT=${OUT:-build/cpu-allreduce}; mkdir -p "$OUT"
SIZES=(-b 1M -e 64M -f 4)
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/summary.txt"
for dev in multicore niodev; do
  toolkit bandwidth -np 2 -dev $dev --comms mpj,ring,ring-shm "${SIZES[@]}" --max-host 64M -w 3 -n 10 --min-iters 3 \
    --out "$OUT/toolkit-$dev" --title "allReduce, 2 CPU ranks, MPJ $dev" > "$OUT/toolkit-$dev.txt" 2>&1
  sed -i "s/^mpj,/mpj-$dev,/; s/^ring,/ring-$dev,/; s/^ring-shm,/ring-shm-$dev,/" "$OUT/toolkit-$dev/bandwidth.csv"
done
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 600 mpirun -np 2 /usr/bin/python3 \
  scripts/cpu/mpi4py_allreduce.py --min 1M --max 64M --factor 4 --warmup 3 --iters 10 --csv "$OUT/openmpi.csv" \
  > "$OUT/openmpi.txt" 2>&1
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/summary.txt"
for route in mpj-multicore ring-multicore ring-shm-multicore mpj-niodev ring-niodev ring-shm-niodev; do
  toolkit bandwidth-compare --csv "$OUT/toolkit-multicore/bandwidth.csv" --csv "$OUT/toolkit-niodev/bandwidth.csv" \
    --csv "$OUT/openmpi.csv" --out "$OUT/compare" --ratio "$route/openmpi" --title "allReduce, 2 CPU ranks" \
    2>/dev/null | grep -v '^wrote' | tee -a "$OUT/summary.txt"
done
