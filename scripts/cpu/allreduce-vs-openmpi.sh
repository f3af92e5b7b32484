#!/usr/bin/env bash
# The CPU all-reduce against Open MPI on this machine: float32 sums on 2 ranks from 4 KiB to 64 MiB, in place and
# out of place, through the toolkit's ring communicator over shared memory (`shm`, which runs ShmAllReduce; older builds called it `ring-shm`)
# and through Open MPI (mpi4py_allreduce.py on Debian's openmpi-bin, python3-mpi4py and python3-numpy, installed
# here when missing). The two run ALTERNATELY, ROUNDS times (default 3), so that both see the same load;
# allreduce_ratios.py then gives each size's busbw ratio (toolkit / Open MPI, the median over the rounds) and which
# target it meets. Last, 4 ranks on the same cores: every size must complete.
#   bash scripts/cpu/allreduce-vs-openmpi.sh          # OUT=build/cpu-allreduce ROUNDS=3 DEV=niodev by default
#   BEFORE=/path/to/other/checkout bash scripts/cpu/allreduce-vs-openmpi.sh   # also that build's shared-memory all-reduce, each round (COMM=ring-shm for a build that still calls it that)
# Small sizes get many warm-up calls: the JVM compiles the collective's code after some thousands of calls, and a
# training loop runs in that steady state. Both sides get the same warm-up and timed calls per size.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$ROOT"
bash "$ROOT/scripts/setup.sh" || exit 1
apt_install openmpi $(missing_debs openmpi-bin python3-mpi4py python3-numpy)
OUT=${OUT:-build/cpu-allreduce}
ROUNDS=${ROUNDS:-3}
DEV=${DEV:-niodev}                   # MPJ device of the bootstrap: niodev runs each rank as its own process, as mpirun does
rm -rf "$OUT"; mkdir -p "$OUT"
# size bands: "first last warm-up timed seconds-per-size". Each band is a fresh JVM per rank, and its first sizes
# run while the JVM still compiles, so each starts small: the ratio table keeps a size from the first band that
# measured it (1 KiB and the large band's 4-64 KiB only warm up).
# 256 KiB-4 MiB get a band of their own with 1000 timed calls: with 30 (a few ms of calls) one scheduler slice lost to
# another thread moved a round's ratio anywhere from 0.3x to 6.9x; with 1000 the rounds of a run spread less (in two
# runs on 2 cores, in place: 0.87-0.97 / 1.14-1.16 / 0.93-1.00 and 0.29-0.50 / 0.55-1.24 / 0.97-1.14), runs still differ.
# BAND_LIST="first last warm timed seconds;..." replaces the bands (e.g. one band for a quick comparison).
BANDS=("1K 64K 20000 5000 1" "256K 4M 200 1000 2" "4K 64M 100 30 2")
if [ -n "${BAND_LIST:-}" ]; then IFS=';' read -ra BANDS <<< "$BAND_LIST"; fi
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "== $(nproc) cores, $(java -version 2>&1 | head -1), $(mpirun --version 2>/dev/null | head -1), load $(load)" \
  | tee "$OUT/summary.txt"

toolkit_band() {      # ranks dir first last warm timed seconds
  ${TOOLKIT_CMD:-toolkit} bandwidth -np "$1" -dev "$DEV" --comms "${COMM:-shm}" -b "$3" -e "$4" -f 4 -w "$5" -n "$6" --min-iters 3 \
    --seconds-per-size "$7" --max-host 64M --out "$2" --title "allReduce, $1 CPU ranks" > "$2.txt" 2>&1
}
openmpi_band() {      # csv first last warm timed seconds
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 600 mpirun -np 2 /usr/bin/python3 \
    scripts/cpu/mpi4py_allreduce.py --min "$2" --max "$3" --factor 4 --warmup "$4" --iters "$5" \
    --seconds-per-size "$6" --csv "$1" > "${1%.csv}.txt" 2>&1
}

for r in $(seq 1 "$ROUNDS"); do
  d="$OUT/round-$r"; mkdir -p "$d"
  for i in "${!BANDS[@]}"; do
    read -r first last warm timed secs <<< "${BANDS[$i]}"
    toolkit_band 2 "$d/toolkit-$i" "$first" "$last" "$warm" "$timed" "$secs" || echo "round $r: toolkit band $i failed"
    if [ -n "${BEFORE:-}" ]; then
      TOOLKIT_CMD="$BEFORE/build.sh cli" toolkit_band 2 "$d/before-$i" "$first" "$last" "$warm" "$timed" "$secs" \
        || echo "round $r: the BEFORE build's band $i failed"
    fi
    openmpi_band "$d/openmpi-$i.csv" "$first" "$last" "$warm" "$timed" "$secs" || echo "round $r: Open MPI band $i failed"
  done
  echo "== round $r done, load $(load)" | tee -a "$OUT/summary.txt"
done
for i in "${!BANDS[@]}"; do
  read -r first last warm timed secs <<< "${BANDS[$i]}"
  toolkit_band 4 "$OUT/toolkit-4ranks-$i" "$first" "$last" "$warm" "$timed" "$secs" || echo "4 ranks: band $i failed"
done
echo "== load after: $(load)" | tee -a "$OUT/summary.txt"
/usr/bin/python3 scripts/cpu/allreduce_ratios.py "$OUT" | tee -a "$OUT/summary.txt"
