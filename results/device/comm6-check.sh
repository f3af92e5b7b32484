#!/usr/bin/env bash
# Issue 6's open points on the 2-GPU machine, in one short run (about 3-4 minutes on 2x H200):
#  1. the NCCL JUnit tests (NcclGpuTest: bootstraps via mpj / tcp:// / file:// / the seed's steps, every collective,
#     groups, timeouts, mismatches) with the split probe of every "checks" job: ncclCommSplit in NCCL's blocking and
#     non-blocking modes, key -rank and key rank, one rank alone with the others NO_COLOR (lines "SPLIT PROBE ...");
#  2. busbw of NCCL (the toolkit's harness, as nccl-tests runs it: -w 5 -n 20, in and out of place, every result
#     checked) against torch.distributed all_reduce (results/device/torch_allreduce.py, -w 5 -n 20, in place), both on
#     torch's own NCCL library, 1 MiB .. 1 GiB, in two alternating rounds (nccl, torch, nccl, torch): the ratio of
#     each round and of the best of both rounds on each side;
#  3. init: ncclCommInitRank as the toolkit times it (round 1, every rank), and NCCL's own "Init timings" breakdown
#     for the toolkit's ranks and torch's ranks (round 2 runs with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT).
# Usage, from the repository root with the bundle unpacked: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/comm6-check.sh
# Files under $OUT: summary.txt (all that matters) and comm6-all.tgz holding the rest (the device returns only a few
# files per run): nccl-junit.txt, junit/, nccl-r1/ nccl-r2/ (bandwidth.csv), torch-r1.csv torch-r2.csv, compare-r1/
# compare-r2/ (ratio.txt), best-of-2.txt, and every step's log (*.txt).
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "comm6-check"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"

PY=${PYTHON:-python3}
if ! "$PY" -c 'import torch' 2>/dev/null; then
  for p in /opt/torch/.venv/bin/python3 /opt/*/.venv/bin/python3; do "$p" -c 'import torch' 2>/dev/null && { PY=$p; break; }; done
fi
# one NCCL library for both sides: torch's (else the library search may load another version than torch runs)
if [ -z "${NCCL_HOME:-}" ]; then
  torch_nccl=$("$PY" -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null)
  [ -n "$torch_nccl" ] && [ -e "$torch_nccl/lib/libnccl.so.2" ] && export NCCL_HOME=$torch_nccl
fi
note "NCCL for the toolkit: ${NCCL_HOME:-the library search (NCCL_HOME unset)}; torch's: $("$PY" -c 'import torch; print(".".join(map(str, torch.cuda.nccl.version())))' 2>/dev/null || echo 'no torch')"

# 1. NCCL tests with the split probe
JUNIT_REPORTS="$OUT/junit" run nccl-junit 240 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu \
  --include-classname 'org\.mpi2nccl\.comm\.nccl\.NcclGpuTest'
J="$OUT/nccl-junit.txt"
junit_totals "$J"
grep -E '^[│ ]+[├└]─ .*[✔✘↷]' "$J" | grep -vE 'JUnit|NcclGpuTest ✔' | sed -E 's/^[│ ]+[├└]─ /    /' | cut -c1-300 | tee -a "$SUMMARY"
note "  split probe (each rank of each checks job; distinct outcomes, times dropped):"
grep -E 'SPLIT PROBE' "$J" | sed -E 's/^.*SPLIT PROBE //; s/ \([0-9.]+ ms\)$//' | sort | uniq -c | cut -c1-400 | sed 's/^/    /' | tee -a "$SUMMARY"
note "  NCCL's own warnings (distinct, first 10):"
grep -E 'NCCL WARN' "$J" | sed -E 's/^.*NCCL WARN/NCCL WARN/; s/0x[0-9a-f]+/0x.../g' | sort | uniq -c | sort -rn | head -10 | cut -c1-300 \
  | sed 's/^/    /' | tee -a "$SUMMARY"
note "  the ranks' error lines (first 20):"
grep -E 'COMM ERROR|NCCL FAILED' "$J" | sort -u | head -20 | cut -c1-500 | sed 's/^/    /' | tee -a "$SUMMARY"

# 2 + 3. two alternating rounds; round 2 with NCCL's init breakdown
for round in 1 2; do
  dbg=()
  [ "$round" = 2 ] && dbg=(env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT)
  run "bandwidth-r$round" 150 "${dbg[@]}" "$BUNDLE/bin/mpi2nccl" bandwidth -np 2 --comms nccl -b 1M -e 1G -f 2 -w 5 -n 20 \
    --out "$OUT/nccl-r$round" --title "allReduce busbw, 2 GPUs: NCCL (round $round)"
  if "$PY" -c 'import torch' 2>/dev/null; then
    run "torch-r$round" 150 "${dbg[@]}" "$PY" "$(dirname "$0")/torch_allreduce.py" --min 1M --max 1G --warmup 5 --iters 20 \
      --csv "$OUT/torch-r$round.csv"
    run "compare-r$round" 60 "$BUNDLE/bin/mpi2nccl" bandwidth-compare --csv "$OUT/nccl-r$round/bandwidth.csv" \
      --csv "$OUT/torch-r$round.csv" --out "$OUT/compare-r$round" --ratio nccl/torch.distributed --ratio-from 1M \
      --title "allReduce busbw, 2 GPUs, round $round"
    sed 's/^/    /' "$OUT/compare-r$round/ratio.txt" 2>/dev/null | tee -a "$SUMMARY"
  else
    note "== torch-r$round: skipped (no python3 with torch; set PYTHON=/path/to/python)"
  fi
done
grep -hE 'Exception|FAILED|wrong [1-9]' "$OUT"/bandwidth-r*.txt "$OUT"/torch-r*.txt 2>/dev/null | head -5 | cut -c1-300 \
  | sed 's/^/    ERROR: /' | tee -a "$SUMMARY"
awk -F, 'FNR > 1 && $14 != "0" && $14 != "" { bad++ } END { printf "  wrong elements: %s\n", bad ? bad " rows with wrong results" : "none in any row" }' \
  "$OUT"/nccl-r*/bandwidth.csv "$OUT"/torch-r*.csv 2>/dev/null | tee -a "$SUMMARY"

# best of the two rounds on each side (in place: torch's all_reduce is in place), size by size
"$PY" - "$OUT" <<'EOF' 2>&1 | tee "$OUT/best-of-2.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
import csv, glob, sys
out = sys.argv[1]
best = {}
for f in glob.glob(out + "/nccl-r*/bandwidth.csv") + glob.glob(out + "/torch-r*.csv"):
    for r in csv.DictReader(open(f)):
        if r["collective"] != "allReduce" or r["placement"] != "in-place" or int(r["size_bytes"]) < (1 << 20):
            continue
        k = (r["communicator"], int(r["size_bytes"]))
        best[k] = max(best.get(k, 0.0), float(r["busbw_GBps"]))
sizes = sorted({s for c, s in best if c == "nccl"} & {s for c, s in best if c == "torch.distributed"})
print("# busbw (GB/s), in place, best of 2 rounds each: nccl vs torch.distributed")
low = None
for s in sizes:
    a, b = best[("nccl", s)], best[("torch.distributed", s)]
    low = a / b if low is None else min(low, a / b)
    print(f"{s / 2**20:10.0f} MiB {a:9.2f} {b:9.2f} {a / b:7.3f}")
print("# lowest ratio: %s" % ("%.3f" % low if low is not None else "no rows"))
EOF

note "== targets"
for f in "$OUT"/compare-r1/ratio.txt "$OUT"/compare-r2/ratio.txt "$OUT"/best-of-2.txt; do
  [ -s "$f" ] || { note "  $(basename "$(dirname "$f")")/$(basename "$f"): missing"; continue; }
  awk -v name="$(basename "$(dirname "$f")")/$(basename "$f")" '!/^#/ && NF >= 4 && $NF+0 == $NF { n++; if ($NF < 1.0) low = low " " $1 $2 "(" $NF ")" }
       END { if (n == 0) print "  " name ": no rows";
             else if (low == "") print "  " name ": busbw nccl/torch >= 1.00 at every size 1 MiB..1 GiB: MET (" n " sizes)";
             else print "  " name ": busbw nccl/torch >= 1.00: MISSED at" low }' "$f" | tee -a "$SUMMARY"
done
note "  init as the toolkit times it (round 1: ncclCommInitRank on each rank, after the id's rendezvous):"
grep -hE 'bench: nccl init' "$OUT/bandwidth-r1.txt" | sed -E 's/^.*bench: /    /' | tee -a "$SUMMARY"
grep -hoE 'ncclCommInitRank [0-9.]+ ms' "$J" "$OUT/bandwidth-r1.txt" | awk '{print $2}' | sort -n | awk '{ v[++n] = $1 }
  END { if (n) printf "    %d inits (JUnit jobs + round 1): min %.1f / median %.1f / max %.1f ms; target <= 400 ms: median %s, every init %s\n",
        n, v[1], (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[n],
        ((n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) <= 400 ? "MET" : "MISSED"), (v[n] <= 400 ? "MET" : "MISSED") }' \
  | tee -a "$SUMMARY"
grep -hE 'torch.distributed init' "$OUT/torch-r1.txt" 2>/dev/null | sed 's/^/    /' | tee -a "$SUMMARY"
note "  NCCL's own init breakdown (round 2, NCCL_DEBUG_SUBSYS=INIT; seconds): toolkit ranks, then torch's"
for f in "$OUT/bandwidth-r2.txt" "$OUT/torch-r2.txt"; do
  grep -hE 'Init timings|Init COMPLETE' "$f" 2>/dev/null | sed -E 's/^.*NCCL INFO //' | cut -c1-260 | sed "s|^|    $(basename "$f" .txt): |" \
    | tee -a "$SUMMARY"
done

if pgrep -af 'daemon.jar|org.mpi2nccl' | grep -v pgrep; then note "LEFTOVER PROCESSES (above)"; else note "no leftover processes"; fi
note "done: $OUT (summary.txt; everything else in comm6-all.tgz)"
# one archive of what this script wrote but the summary, those originals removed (only its own names: $OUT may be
# shared with other scripts): the device returns only a few files per run
mine=(nccl-junit.txt junit best-of-2.txt)
for r in 1 2; do mine+=("bandwidth-r$r.txt" "nccl-r$r" "torch-r$r.txt" "torch-r$r.csv" "compare-r$r.txt" "compare-r$r"); done
present=()
for f in "${mine[@]}"; do [ -e "$OUT/$f" ] && present+=("$f"); done
if [ ${#present[@]} -gt 0 ] && tar -czf "$OUT/comm6-all.tgz" -C "$OUT" "${present[@]}"; then
  (cd "$OUT" && rm -rf -- "${present[@]}")
fi
ls -la "$OUT"
