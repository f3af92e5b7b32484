#!/usr/bin/env bash
# NCCL within one node and across two simulated nodes of this machine (network namespaces joined by a veth pair,
# `mpi2nccl nodes`), for lesson 08. Needs root and iproute2 (ip, tc) and util-linux (unshare); no network.
#   BUNDLE=/tmp/bundle OUT=/tmp/out bash scripts/gpu/two-nodes.sh          # 2 GPUs: about 6-8 minutes
#   BUNDLE=/tmp/bundle OUT=/tmp/out bash scripts/gpu/two-nodes.sh --dry    # 1 GPU (or none): the parts that fit
#  1. where the ranks run: 2 ranks, one per node, each node with its own GPU, NCCL_HOSTID and NCCL_SOCKET_IFNAME;
#  2. NCCL all-reduce 8 B .. 1 GiB on 2 GPUs within one node (NVLink, or PCIe: P2P/SHM);
#  3. the same across the 2 simulated nodes, 1 GPU each (NCCL_HOSTID distinct, NCCL_IB_DISABLE=1): NCCL's INFO log
#     kept, and the verdict on "via NET/Socket" between the nodes;
#  4. the interface mistakes, with NCCL_DEBUG=INFO: NCCL_SOCKET_IFNAME naming an interface the nodes lack (eth9),
#     and one whose address the other node cannot reach (eth0, each node's private network);
#  5. the CPU ring within a node vs across the link shaped to 100 Mbit/s (what the lesson shows live).
# --dry: 1 GPU. Step 2 runs 1 rank; steps 3 and 4 run both nodes' ranks on GPU 0 (NCCL takes the two "hosts" at
# their word, so the socket path is the same), sizes up to 64 MiB.
# Everything goes into $OUT/two-nodes/, packed as $OUT/two-nodes.tar.gz at the end; $OUT/summary.txt has the verdicts.
# For lesson 08 (2-GPU run only): untar, copy two-nodes/results/two-nodes-2gpu/ to results/, and its
# two-nodes-2gpu.properties to toolkit/src/main/resources/org/mpi2nccl/lessons/recorded/.
set -uo pipefail
DRY=0
[ "${1:-}" = "--dry" ] && DRY=1
source "$(dirname "$0")/cuda-common.sh"
W="$OUT/two-nodes"
mkdir -p "$W"
OUT_TOP=$OUT
OUT=$W            # run() writes NAME.txt under $OUT
header "two-nodes$([ $DRY = 1 ] && echo ' (dry: 1 GPU)')"

missing=""
for c in ip tc unshare; do command -v "$c" >/dev/null || missing="$missing $c"; done
[ "$(id -u)" = 0 ] || missing="$missing root"
if [ -n "$missing" ]; then
  note "two-nodes: cannot simulate nodes here: missing$missing (needs root, iproute2's ip and tc, util-linux's unshare)"
  exit 2
fi
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
note "GPUs: $GPUS; $(nvidia-smi topo -m 2>/dev/null | sed -n 2p | tr -s ' ')"
if [ $DRY = 0 ] && [ "${GPUS:-0}" -lt 2 ]; then
  note "two-nodes: needs 2 GPUs (found ${GPUS:-0}): run with --dry on one GPU"
  exit 2
fi
M=$BUNDLE/bin/mpi2nccl
if [ $DRY = 1 ]; then NP_WITHIN=1; PER_NODE=0; MAX=64M; else NP_WITHIN=2; PER_NODE=1; MAX=1G; fi
MAX=${NCCL_MAX:-$MAX}     # NCCL_MAX / SECONDS_PER_SIZE shorten a run that must fit a time limit
NCCL_SIZES=(-b 8 -e "$MAX" -f 2 -w 5 -n 20 --seconds-per-size "${SECONDS_PER_SIZE:-3}")
NODES=("$M" nodes --gpus-per-node "$PER_NODE" --timeout 8m)

# NCCL writes its INFO lines from native code, past the streams the launcher captures: NCCL_DEBUG_FILE (%h host,
# %p pid) puts them in files, which are added to the step's own text file after it ends.
nccl_log() { mkdir -p "$W/nccl-$1"; echo "NCCL_DEBUG_FILE=$W/nccl-$1/%h.%p.log"; }
append_nccl_log() { cat "$W/nccl-$1"/*.log >> "$W/$1.txt" 2>/dev/null; true; }

# 1. where the ranks run
run where 120 "${NODES[@]}" -- mpjrun -np 2 --timeout 60s org.mpi2nccl.launch.nodes.WhereAmI
grep -E '^\[rank' "$W/where.txt" | sed 's/^/    /' | tee -a "$SUMMARY"

# 2. within one node
export "$(nccl_log within)"
NCCL_DEBUG=INFO run within 300 "$M" bandwidth -np "$NP_WITHIN" --comms nccl "${NCCL_SIZES[@]}" \
  --out "$W/within" --title "NCCL all-reduce, $NP_WITHIN GPU(s), one node"
unset NCCL_DEBUG_FILE; append_nccl_log within
grep -oE 'via (P2P|SHM|NET)[^ ]*' "$W/within.txt" | sort | uniq -c | sed 's/^/    within one node: /' | tee -a "$SUMMARY"

# 3. across the two nodes
run across 420 "${NODES[@]}" --env NCCL_DEBUG=INFO --env NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH --env "$(nccl_log across)" -- \
  bandwidth -np 2 --comms nccl "${NCCL_SIZES[@]}" --out "$W/across" --title "NCCL all-reduce, 2 simulated nodes"
append_nccl_log across
grep -oE 'via (P2P|SHM|NET)[^ ]*' "$W/across.txt" | sort | uniq -c | sed 's/^/    across nodes: /' | tee -a "$SUMMARY"
if grep -qE 'via NET/Socket' "$W/across.txt" && ! grep -qE 'via (P2P|SHM)' "$W/across.txt"; then
  note "  NCCL between the nodes: NET/Socket only: MET"
else
  note "  NCCL between the nodes: NET/Socket only: NOT MET (see across.txt)"
fi
for f in within across; do
  awk '/^(\[[^]]*\] )?# [a-z-]+ allReduce on/ {sub(/^\[[^]]*\] /, ""); print "    " $0}
       / +(8|1048576|67108864|1073741824) +[0-9]+ +float32/ {sub(/^\[[^]]*\] /, ""); print "    " $0}' "$W/$f.txt" | tee -a "$SUMMARY"
done

# 4. the interface mistakes
run bad-ifname 180 "${NODES[@]}" --env NCCL_DEBUG=INFO --env NCCL_SOCKET_IFNAME=eth9 --env "$(nccl_log bad-ifname)" -- \
  bandwidth -np 2 --comms nccl -b 8 -e 8 --timeout 90s
append_nccl_log bad-ifname
run unreachable 180 "${NODES[@]}" --env NCCL_DEBUG=INFO --env NCCL_SOCKET_IFNAME=eth0 --env "$(nccl_log unreachable)" -- \
  bandwidth -np 2 --comms nccl -b 8 -e 8 --timeout 90s
append_nccl_log unreachable
for f in bad-ifname unreachable; do
  note "  $f: the first lines NCCL and the ranks printed about it:"
  grep -E 'NCCL WARN|Bootstrap|NET/Socket|failed|Exception|error' "$W/$f.txt" | grep -vE '^\s*(\[[^]]*\] )?\s+at ' | head -8 \
    | cut -c1-300 | sed 's/^/    /' | tee -a "$SUMMARY"
done

# 5. the CPU ring within a node vs across a 100 Mbit/s link
# (within a node: the ring on node0 alone, through a machines file of one line)
printf '10.211.0.1\n' > "$W/machines.node0"
run cpu-ring-within 180 "${NODES[@]}" --link-rate 100mbit -- bandwidth -np 2 --comms ring -b 16K -e 4M -f 4 -w 1 -n 5 \
  --no-in-place --machines "$W/machines.node0" --out "$W/cpu-within"
run cpu-ring-across 180 "${NODES[@]}" --link-rate 100mbit -- bandwidth -np 2 --comms ring -b 16K -e 4M -f 4 -w 1 -n 5 \
  --no-in-place --out "$W/cpu-across"
grep -hE ' +4194304 +[0-9]+ +float32' "$W/cpu-ring-within.txt" "$W/cpu-ring-across.txt" | sed 's/^/    ring within, across: /' \
  | tee -a "$SUMMARY"

# the files lesson 08 reads (results/two-nodes-2gpu/), with where they came from
if [ $DRY = 0 ]; then
  R="$W/results/two-nodes-2gpu"
  mkdir -p "$R/within" "$R/across"
  cp "$W/within/bandwidth.csv" "$R/within/" 2>/dev/null
  cp "$W/across/bandwidth.csv" "$R/across/" 2>/dev/null
  grep -E 'NCCL INFO (Bootstrap|NET/Socket|Using network|comm .* nNodes|Channel .* via|Connected all|Init COMPLETE)' \
    "$W/across.txt" | sed -E 's/^\[rank ([0-9])\] [^ ]+ /[rank \1] /' | head -40 > "$R/nccl-transport.txt"
  for f in bad-ifname unreachable; do
    grep -E 'NCCL (WARN|INFO (Bootstrap|NET/Socket|Using network))|failed|error' "$W/$f.txt" \
      | grep -vE '^\s*(\[[^]]*\] )?\s+at ' | head -20 | cut -c1-400 > "$R/nccl-$f.txt"
  done
  COMMIT=$(cat "$BUNDLE/COMMIT" 2>/dev/null || echo unknown)
  WHEN="$(date -u '+%F %H:%M UTC'), NCCL $(grep -oE 'NCCL version [0-9.]+' "$W/across.txt" | head -1 | cut -d' ' -f3), commit $COMMIT"
  MACHINE="${GPUS}x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  {
    echo "# Where lesson 08's recorded files came from (results/two-nodes-2gpu/README.md says more)."
    echo "machine=$MACHINE"
    echo "command=they come from scripts/gpu/two-nodes.sh on a machine with 2 GPUs"
    for f in within/bandwidth.csv across/bandwidth.csv nccl-transport.txt nccl-bad-ifname.txt nccl-unreachable.txt; do
      echo "$f=$WHEN"
    done
  } > "$W/results/two-nodes-2gpu.properties"
  cat > "$R/README.md" <<EOF
# NCCL within one node and across two simulated nodes

Machine: $MACHINE, $(hostname). Recorded $WHEN.
Command: \`BUNDLE=... OUT=... bash scripts/gpu/two-nodes.sh\` (the bundle built from commit $COMMIT).

- \`within/bandwidth.csv\`: \`mpi2nccl bandwidth -np 2 --comms nccl -b 8 -e 1G\`, both GPUs in one node.
- \`across/bandwidth.csv\`: the same under \`mpi2nccl nodes --gpus-per-node 1\`: two network namespaces joined by a
  veth pair, one GPU each, distinct NCCL_HOSTID, NCCL_SOCKET_IFNAME=eth1, NCCL_IB_DISABLE=1.
- \`nccl-transport.txt\`: NCCL's INFO lines of that run: bootstrap interface and the NET/Socket channels.
- \`nccl-bad-ifname.txt\`: NCCL_SOCKET_IFNAME=eth9, an interface the nodes lack.
- \`nccl-unreachable.txt\`: NCCL_SOCKET_IFNAME=eth0, each node's private network, which the other node cannot reach.
EOF
fi

if pgrep -af 'daemon.jar|org.mpi2nccl' >/dev/null; then note "LEFTOVER PROCESSES: $(pgrep -af 'daemon.jar|org.mpi2nccl' | head -3)"; fi
left=$(ip netns list 2>/dev/null | grep -c '^m2n' || true)
note "namespaces left: $left"
cp "$SUMMARY" "$W/summary.txt"
tar czf "$OUT_TOP/two-nodes.tar.gz" -C "$OUT_TOP" two-nodes && rm -rf "$W"
echo "done: $OUT_TOP/two-nodes.tar.gz (summary: $OUT_TOP/summary.txt)"
