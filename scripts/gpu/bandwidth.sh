#!/usr/bin/env bash
# All-reduce on all the GPUs of this machine (NP, default: nvidia-smi's count), in one run (about 6-8 minutes: give it STEP_TIMEOUT=600 under gpu-suite.sh,
# or run it alone from the repository root: BUNDLE=/tmp/bundle OUT=/tmp/out bash scripts/gpu/bandwidth.sh).
#  1. the NCCL JUnit tests (tag gpu): init via the MPJ broadcast of the unique id, tcp:// and file://, the
#     bootstrap one step at a time; every collective's results; split (blocking and non-blocking); send/recv;
#     several GPUs in one process (ncclCommInitAll + group calls); mismatched calls; a skipped collective aborted
#     by the timeout (ncclCommAbort) and named; NCCL_* passed on. Then per test: passed / FAILED with its first lines, every rank's error lines
#     (COMM ERROR, NCCL FAILED, exceptions) and NCCL's own WARN lines;
#  2. the bandwidth harness, 2 ranks, allReduce float32 sum, 8 B .. 1 GiB: nccl (as nccl-tests/PyTorch run it:
#     blocking NCCL, no metadata check, calls queued without a host wait, ranks lined up by a GPU barrier before the
#     timed calls), nccl-checked (the toolkit's defaults: each call waited for, metadata check), mpj-staged (the MPI
#     route: D2H, MPJ Allreduce, H2D), ring-staged (the hand-written ring, same staging);
#  3. torch.distributed all_reduce on the same GPUs in the same run (scripts/gpu/torch_allreduce.py);
#  4. bandwidth-compare: one plot of all of them, the busbw ratio nccl / torch at 1 MiB .. 1 GiB, and the verdicts
#     on the targets: ratio >= 1.00 at every size, comm init <= 400 ms.
# Files under $OUT: summary.txt (everything that matters), *.txt logs, junit/, nccl/ mpi/ (bandwidth.csv, busbw.png),
# torch_allreduce.csv, compare/ (all.csv, busbw-in-place.png, busbw-out-of-place.png, ratio.txt).
# For lesson 04: copy nccl/bandwidth.csv, mpi/bandwidth.csv and torch_allreduce.csv to results/bandwidth-2gpu/ (same
# names under nccl/ and mpi/), and the "NCCL INIT rank" lines of nccl-junit.txt to its nccl-init.txt.
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
header "bandwidth"
NP=${NP:-$(gpu_count)}
[ "$NP" -ge 2 ] 2>/dev/null || { note "bandwidth: needs 2 or more GPUs, this machine has ${NP:-none} (set NP to choose)"; exit 2; }
nvidia-smi topo -m 2>&1 | head -4 | tee -a "$SUMMARY"

# The Python with torch (the peer), and its own NCCL for the toolkit too: the library search would otherwise take the
# first libnccl.so.2 among the wheels (once 2.28.3 while torch ran 2.28.9), and the ratio would compare two
# NCCL versions. NCCL_HOME set by the caller wins.
torch_python
use_torch_nccl
note "NCCL for the toolkit: ${NCCL_HOME:+NCCL_HOME=$NCCL_HOME}${NCCL_HOME:-the library search (NCCL_HOME unset)}; torch's: $("$PY" -c 'import torch; print(".".join(map(str, torch.cuda.nccl.version())))' 2>/dev/null || echo 'no torch')"

# 1. NCCL tests
JUNIT_REPORTS="$OUT/junit" run nccl-junit 420 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu \
  --include-classname 'org\.mpi2nccl\.comm\.nccl\.NcclGpuTest'
junit_totals "$OUT/nccl-junit.txt"
J="$OUT/nccl-junit.txt"
note "  per test (✔ passed, ✘ FAILED, ↷ skipped; the failure's first 400 characters):"
grep -E '^[│ ]+[├└]─ .*[✔✘↷]' "$J" | grep -vE 'JUnit|NcclGpuTest ✔' | sed -E 's/^[│ ]+[├└]─ /    /' | cut -c1-400 | tee -a "$SUMMARY"
note "  the ranks' error lines (first 30):"
grep -E 'COMM ERROR|NCCL FAILED|Exception|Error:' "$J" | grep -vE '^\s+(org\.|java\.)|MethodSource|=> |^[│ ]*[├└│]' | sort -u | head -30 \
  | cut -c1-600 | sed 's/^/    /' | tee -a "$SUMMARY"
note "  NCCL's own warnings (distinct, first 15):"
grep -E 'NCCL WARN' "$J" | sed -E 's/^.*NCCL WARN/NCCL WARN/; s/0x[0-9a-f]+/0x.../g' | sort | uniq -c | sort -rn | head -15 | sed 's/^/    /' | tee -a "$SUMMARY"
note "  init times (every NCCL INIT line):"
grep -E "NCCL INIT rank" "$J" | sed -E 's/^.*(NCCL INIT)/\1/' | sed 's/^/    /' | tee -a "$SUMMARY"

# 2. bandwidth: NCCL both ways (fast), then the host-staged routes (slow: fewer calls per size)
run bandwidth-nccl 300 "$BUNDLE/bin/mpi2nccl" bandwidth -np "$NP" --comms nccl,nccl-checked -b 8 -e 1G -f 2 -w 5 -n 20 \
  --out "$OUT/nccl" --title "allReduce busbw, $NP GPUs: NCCL"
grep -E "bench: nccl(-checked)? init" "$OUT/bandwidth-nccl.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
# host sizes to 256 MiB: the ring over MPJ refuses messages over 192 MiB (MpjLimits), which a 512 MiB ring on 2 ranks has
run bandwidth-mpi 420 "$BUNDLE/bin/mpi2nccl" bandwidth -np "$NP" --comms mpj-staged,ring-staged -b 8 -e 1G -f 2 \
  --max-host 256M -w 1 -n 5 --min-iters 1 --seconds-per-size 2 \
  --out "$OUT/mpi" --title "allReduce busbw, $NP GPUs: host-staged MPI routes"
for f in "$OUT/bandwidth-nccl.txt" "$OUT/bandwidth-mpi.txt"; do
  awk '/^(\[[^]]*\] )?# [a-z-]+ allReduce on/ {sub(/^\[[^]]*\] /, ""); print "    " $0}
       / +(1048576|16777216|67108864|268435456|1073741824) +[0-9]+ +float32/ {sub(/^\[[^]]*\] /, ""); print "    " $0}' "$f" \
    | tee -a "$SUMMARY"
  grep -E 'Exception|Error|FAILED|failed' "$f" | head -5 | cut -c1-400 | sed 's/^/    ERROR: /' | tee -a "$SUMMARY"
done

# 3. torch.distributed in the same run
if "$PY" -c 'import torch' 2>/dev/null; then
  run torch-allreduce 240 "$PY" "$(dirname "$0")/torch_allreduce.py" --ranks "$NP" --min 8 --max 1G --csv "$OUT/torch_allreduce.csv"
  grep -E "init" "$OUT/torch-allreduce.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
else
  note "== torch-allreduce: skipped (no python3 with torch; set PYTHON=/path/to/python)"
fi

# 4. all on one plot; NCCL vs torch ratio (in place: torch's all_reduce is in place)
csvs=()
for f in "$OUT/nccl/bandwidth.csv" "$OUT/mpi/bandwidth.csv" "$OUT/torch_allreduce.csv"; do [ -s "$f" ] && csvs+=(--csv "$f"); done
run bandwidth-compare 120 "$BUNDLE/bin/mpi2nccl" bandwidth-compare "${csvs[@]}" --out "$OUT/compare" \
  --ratio nccl/torch.distributed --ratio-from 1M --title "allReduce busbw, $NP GPUs, one run"
sed 's/^/    /' "$OUT/compare/ratio.txt" 2>/dev/null | tee -a "$SUMMARY"

# the targets
note "== targets"
if [ -s "$OUT/compare/ratio.txt" ]; then
  awk '!/^#/ && NF >= 4 && $NF+0 == $NF { n++; if ($NF < 1.0) { low = low " " (NF == 5 ? $1 $2 : $1) "(" $NF ")" } }
       END { if (n == 0) print "  busbw nccl/torch >= 1.00 at 1 MiB..1 GiB: NO ROWS (see compare/ratio.txt)";
             else if (low == "") print "  busbw nccl/torch >= 1.00 at every size 1 MiB..1 GiB: MET (" n " sizes)";
             else print "  busbw nccl/torch >= 1.00 at every size 1 MiB..1 GiB: MISSED at" low }' "$OUT/compare/ratio.txt" \
    | tee -a "$SUMMARY"
else
  note "  busbw nccl/torch: NOT MEASURED (no ratio table: see bandwidth-nccl.txt, torch-allreduce.txt, bandwidth-compare.txt)"
fi
cat "$J" "$OUT/bandwidth-nccl.txt" 2>/dev/null | grep -oE 'ncclCommInitRank [0-9.]+ ms' | awk '{print $2}' \
  | sort -n | awk '{ v[++n] = $1; s += $1 } END {
      if (n == 0) { print "  comm init <= 400 ms: NOT MEASURED (no ncclCommInitRank times in the logs)"; exit }
      med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2;
      printf "  comm init (ncclCommInitRank, %d inits: both ranks of every job; the first job on a cold machine is the slowest):\n", n;
      printf "    min %.1f / median %.1f / max %.1f ms: every init %s; median %s\n", v[1], med, v[n],
             (v[n] <= 400 ? "MET (<= 400 ms)" : "MISSED (> 400 ms)"), (med <= 400 ? "MET" : "MISSED") }' | tee -a "$SUMMARY"

if pgrep -af 'daemon.jar|org.mpi2nccl' ; then note "LEFTOVER PROCESSES"; fi
note "done: $OUT"
