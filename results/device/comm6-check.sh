#!/usr/bin/env bash
# Issue 6's open points on the 2-GPU machine, in one short run (about 4-5 minutes on 2x H200):
#  1. the NCCL JUnit tests (NcclGpuTest: bootstraps via mpj / tcp:// / file:// / the seed's steps, every collective,
#     groups, timeouts, mismatches) with the split probe of every "checks" job: ncclCommSplit in NCCL's blocking and
#     non-blocking modes, key -rank and key rank, one rank alone with the others NO_COLOR (lines "SPLIT PROBE ...");
#  2. busbw of NCCL (the toolkit's harness, as nccl-tests runs it, in and out of place, every result checked) against
#     torch.distributed all_reduce (results/device/torch_allreduce.py, in place), both on torch's own NCCL library, in
#     three alternating rounds (nccl, torch, nccl, ...), the same protocol on both sides: 8 B .. 1 GiB by 2, per size
#     50 warm-up calls and 200 timed calls back to back, one synchronize, the slowest rank's time / 200 (the run of
#     11:00 with 5 + 20 calls from 1 MiB on gave bimodal small sizes: ~1 ms timed in all, the GPU still ramping up).
#     Compared: the median over the rounds of each side's in-place busbw, size by size, 1 MiB .. 1 GiB;
#  3. init: ncclCommInitRank as the toolkit times it (JUnit jobs and every round), and NCCL's own "Init timings"
#     breakdown of the toolkit's ranks and torch's ranks (last round, NCCL_DEBUG_SUBSYS=INIT into NCCL_DEBUG_FILE);
#     then one more init on each side with CUDA_MODULE_LOADING=EAGER: does it make NCCL's "kernels" phase cheaper?
# Usage, from the repository root with the bundle unpacked: BUNDLE=/tmp/bundle OUT=/tmp/out bash results/device/comm6-check.sh
# Files under $OUT: summary.txt (all that matters) and comm6-all.tgz holding the rest (the device returns only a few
# files per run): nccl-junit.txt, junit/, nccl-rN/bandwidth.csv, torch-rN.csv, ratio.txt, nccl-debug-*.log, the logs.
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "comm6-check"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>&1 | sed 's/^/   /' | tee -a "$SUMMARY"

torch_python
# one NCCL library for both sides: torch's (else the library search may load another version than torch runs)
use_torch_nccl
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

# 2 + 3. three alternating rounds (nccl, torch, nccl, torch, nccl, torch), the same protocol on both sides: sizes
# 8 B .. 1 GiB by 2 (the small sizes warm the GPU and NCCL up before 1 MiB on both sides), per size 50 warm-up calls
# and 200 timed calls back to back, one synchronize, the slowest rank's time / 200. Compared: the median over the
# rounds of each side's in-place busbw, size by size. The last round writes NCCL's init breakdown (NCCL_DEBUG_FILE).
W=50; N=200; ROUNDS=3
have_torch=0; "$PY" -c 'import torch' 2>/dev/null && have_torch=1
for round in $(seq 1 $ROUNDS); do
  dbg=()
  [ "$round" = "$ROUNDS" ] && dbg=(env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT)
  run "bandwidth-r$round" 150 "${dbg[@]}" ${dbg[@]:+"NCCL_DEBUG_FILE=$OUT/nccl-debug-java-%p.log"} \
    "$BUNDLE/bin/mpi2nccl" bandwidth -np 2 --comms nccl -b 8 -e 1G -f 2 -w $W -n $N \
    --out "$OUT/nccl-r$round" --title "allReduce busbw, 2 GPUs: NCCL (round $round)"
  grep -hE 'bench: nccl init' "$OUT/bandwidth-r$round.txt" | sed -E 's/^.*bench: /    /' | tee -a "$SUMMARY"
  if [ $have_torch = 1 ]; then
    run "torch-r$round" 150 "${dbg[@]}" ${dbg[@]:+"NCCL_DEBUG_FILE=$OUT/nccl-debug-torch-%p.log"} \
      "$PY" "$(dirname "$0")/torch_allreduce.py" --min 8 --max 1G --warmup $W --iters $N --csv "$OUT/torch-r$round.csv"
    grep -hE 'torch.distributed init' "$OUT/torch-r$round.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
  else
    note "== torch-r$round: skipped (no python3 with torch; set PYTHON=/path/to/python)"
  fi
done
grep -hE 'Exception|FAILED|wrong [1-9]' "$OUT"/bandwidth-r*.txt "$OUT"/torch-r*.txt 2>/dev/null | grep -v Fontconfig | head -5 \
  | cut -c1-300 | sed 's/^/    ERROR: /' | tee -a "$SUMMARY"
awk -F, 'FNR > 1 && $14 != "0" && $14 != "" { bad++ } END { printf "  wrong elements: %s\n", bad ? bad " rows with wrong results" : "none in any row (every size, both placements, every round)" }' \
  "$OUT"/nccl-r*/bandwidth.csv "$OUT"/torch-r*.csv 2>/dev/null | tee -a "$SUMMARY"

# the comparison: per round and the medians (in place: torch's all_reduce is in place)
"$PY" - "$OUT" "$ROUNDS" <<'EOF' 2>&1 | tee "$OUT/ratio.txt" | sed 's/^/    /' | tee -a "$SUMMARY"
import csv, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def rows(f, who):
    try:
        return [r for r in csv.DictReader(open(f)) if r["communicator"] == who and r["collective"] == "allReduce"]
    except OSError:
        return []
bw = {}   # (side, placement, size) -> [busbw per round]
for k in range(1, rounds + 1):
    for side, f in (("nccl", f"{out}/nccl-r{k}/bandwidth.csv"), ("torch.distributed", f"{out}/torch-r{k}.csv")):
        for r in rows(f, side):
            bw.setdefault((side, r["placement"], int(r["size_bytes"])), []).append(float(r["busbw_GBps"]))
sizes = sorted(s for (side, p, s) in bw if side == "nccl" and p == "in-place" and s >= (1 << 20)
               and ("torch.distributed", "in-place", s) in bw)
print(f"# busbw GB/s, in place, median of {rounds} rounds each (then the ratio of each round); -w 50 -n 200 on both sides")
print("#     size      nccl     torch   ratio   per round             | nccl out of place (median)")
low, misses = None, []
for s in sizes:
    a, b = bw[("nccl", "in-place", s)], bw[("torch.distributed", "in-place", s)]
    ma, mb = statistics.median(a), statistics.median(b)
    per = " ".join(f"{x / y:.3f}" for x, y in zip(a, b))
    oop = bw.get(("nccl", "out-of-place", s))
    ratio = ma / mb
    low = ratio if low is None else min(low, ratio)
    if ratio < 1.0:
        misses.append(f"{s >> 20}MiB({ratio:.4f})")
    print(f"{s >> 20:6d} MiB {ma:9.2f} {mb:9.2f} {ratio:7.3f}   {per:21s} | {statistics.median(oop) if oop else float('nan'):9.2f}")
if low is None:
    print("# no rows to compare")
else:
    print(f"# lowest median ratio: {low:.3f}; target >= 1.00 at every size 1 MiB..1 GiB: "
          + ("MET" if not misses else "MISSED at " + " ".join(misses)))
EOF

note "== init"
note "  ncclCommInitRank as the toolkit times it (after the id's rendezvous; JUnit jobs: both ranks; bandwidth rounds: rank 0):"
grep -hoE 'ncclCommInitRank [0-9.]+ ms' "$J" "$OUT"/bandwidth-r*.txt | awk '{print $2}' | sort -n | awk '{ v[++n] = $1 }
  END { if (n) printf "    %d inits: min %.1f / median %.1f / max %.1f ms; target <= 400 ms: median %s\n",
        n, v[1], (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[n],
        ((n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) <= 400 ? "MET" : "MISSED") }' | tee -a "$SUMMARY"
note "  NCCL's own init breakdown in seconds (round $ROUNDS, NCCL_DEBUG_SUBSYS=INIT): the toolkit's rank JVMs, then torch's ranks"
for f in "$OUT"/nccl-debug-java-*.log "$OUT"/nccl-debug-torch-*.log; do
  [ -e "$f" ] || continue
  grep -hE 'Init timings' "$f" | sed -E 's/^.*NCCL INFO //' | cut -c1-230 | sed "s|^|    $(basename "$f" .log): |" | tee -a "$SUMMARY"
done
note "  CUDA_MODULE_LOADING=${CUDA_MODULE_LOADING:-unset: CUDA default LAZY, torch sets LAZY when unset}"
# Does eager module loading make NCCL's "kernels" phase cheaper? One init on each side with CUDA_MODULE_LOADING=EAGER
# (the same 1 MiB sweep, 1 + 1 calls: only the init matters here), NCCL's breakdown again.
run init-eager-java 90 env CUDA_MODULE_LOADING=EAGER NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT \
  "NCCL_DEBUG_FILE=$OUT/nccl-debug-eager-java-%p.log" "$BUNDLE/bin/mpi2nccl" bandwidth -np 2 --comms nccl -b 1M -e 1M \
  -w 1 -n 1 --min-iters 1 --out "$OUT/init-eager" --title "init probe"
grep -hE 'bench: nccl init' "$OUT/init-eager-java.txt" | sed -E 's/^.*bench: /    EAGER: /' | tee -a "$SUMMARY"
if [ $have_torch = 1 ]; then
  run init-eager-torch 90 env CUDA_MODULE_LOADING=EAGER NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT \
    "NCCL_DEBUG_FILE=$OUT/nccl-debug-eager-torch-%p.log" "$PY" "$(dirname "$0")/torch_allreduce.py" --min 1M --max 1M \
    --warmup 1 --iters 1 --csv "$OUT/init-eager-torch.csv"
  grep -hE 'torch.distributed init' "$OUT/init-eager-torch.txt" | sed 's/^/    EAGER: /' | tee -a "$SUMMARY"
fi
for f in "$OUT"/nccl-debug-eager-*.log; do
  [ -e "$f" ] || continue
  grep -hE 'Init timings' "$f" | sed -E 's/^.*NCCL INFO //' | cut -c1-230 | sed "s|^|    $(basename "$f" .log): |" | tee -a "$SUMMARY"
done
note "  fonts: libfontconfig.so.1 known to ldconfig: $(ldconfig -p 2>/dev/null | grep -c 'libfontconfig.so.1') (0: the JDK cannot draw charts, whatever FONTCONFIG_FILE says)"

if pgrep -af 'daemon.jar|org.mpi2nccl' | grep -v pgrep; then note "LEFTOVER PROCESSES (above)"; else note "no leftover processes"; fi
note "done: $OUT (summary.txt; everything else in comm6-all.tgz)"
# one archive of what this script wrote but the summary, those originals removed (only its own names: $OUT may be
# shared with other scripts): the device returns only a few files per run
mine=(nccl-junit.txt junit ratio.txt init-eager-java.txt init-eager init-eager-torch.txt init-eager-torch.csv)
for r in $(seq 1 $ROUNDS); do mine+=("bandwidth-r$r.txt" "nccl-r$r" "torch-r$r.txt" "torch-r$r.csv"); done
for f in "$OUT"/nccl-debug-*.log; do [ -e "$f" ] && mine+=("$(basename "$f")"); done
present=()
for f in "${mine[@]}"; do [ -e "$OUT/$f" ] && present+=("$f"); done
if [ ${#present[@]} -gt 0 ] && tar -czf "$OUT/comm6-all.tgz" -C "$OUT" "${present[@]}"; then
  (cd "$OUT" && rm -rf -- "${present[@]}")
fi
ls -la "$OUT"
