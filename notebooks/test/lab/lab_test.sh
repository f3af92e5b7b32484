#!/usr/bin/env bash
# ./build.sh test lab: the lab server as a class uses it, on this machine (as root; it adds accounts, installs the
# lab under /opt and /etc, and makes this checkout private to its owner, as ./build.sh lab install does).
#  1. ./build.sh lab install, two students and one account that is not a student, ./build.sh lab start;
#  2. both students log in through the hub in headless Chromium and run lessons 01 to 05 (solved) at the same time,
#     at the length MPI2NCCL_LESSON_LENGTH says (./build.sh test lab: short; --full: what a student runs):
#     every check right, charts shown, no error; the account that is not a student is refused;
#  3. one student's kernel holds niodev rank engines; the other student tries every attack of attacks.py on them;
#  4. Slurm: the held engines run as the first student's Slurm job; the second student's kernel starts engines and a
#     rank program as Slurm job steps, and when that kernel is killed its Slurm job ends (slurm_engines.py);
#  5. lesson 08's two nodes from Slurm: the second student's kernel holds them and runs ranks over both; the first
#     student can neither reach its daemons, nor take the nodes, nor join its job; after, nothing of it is left on
#     the nodes, not even a process it detached (slurm_nodes.py).
# The accounts are removed and the hub stopped at the end.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib.sh"

if [ "$(id -u)" != 0 ]; then
  say "skipped: the lab test adds accounts and installs the lab, so it runs as root only"
  exit 0
fi
PORT=${LAB_TEST_PORT:-18765}
ALICE=m2n-lab-alice BOB=m2n-lab-bob OUTSIDER=m2n-lab-outsider
OUT="$BUILD/lab-test"
work=$(mktemp -d /tmp/mpi2nccl-lab-test-XXXXXX)   # the test's scripts, readable by the students' accounts
holder=

cleanup() {
  [ -n "$holder" ] && kill "$holder" 2>/dev/null || true   # her held kernel; pkill below ends the rest
  bash "$ROOT/scripts/lab.sh" stop >/dev/null 2>&1 || true
  remove_accounts
  rm -rf "$work"
}

# The test's accounts, their processes and what they left in the shared folders (a later account may get their uid).
remove_accounts() {
  local u
  for u in $ALICE $BOB $OUTSIDER; do
    id "$u" >/dev/null 2>&1 || continue
    pkill -KILL -u "$u" 2>/dev/null || true
    find /tmp /dev/shm /var/tmp -maxdepth 1 -user "$u" -exec rm -rf {} + 2>/dev/null || true
    userdel -r "$u" >/dev/null 2>&1 || true
  done
}
trap cleanup EXIT

password() { head -c 18 /dev/urandom | base64 | tr -d '/+='; }

say "== lab: install, two students and an account that is not one, the hub on 127.0.0.1:$PORT"
"$ROOT/build.sh" lab install --port "$PORT" | tail -2
declare -A PW
remove_accounts
for u in $ALICE $BOB $OUTSIDER; do PW[$u]=$(password); done
printf '%s\n' "${PW[$ALICE]}" | bash "$ROOT/scripts/lab.sh" add-student $ALICE
printf '%s\n' "${PW[$BOB]}" | bash "$ROOT/scripts/lab.sh" add-student $BOB
useradd -m -s /bin/bash $OUTSIDER && printf '%s:%s\n' $OUTSIDER "${PW[$OUTSIDER]}" | chpasswd
bash "$ROOT/scripts/lab.sh" stop >/dev/null
MPI2NCCL_LESSON_LENGTH=${MPI2NCCL_LESSON_LENGTH:-short} bash "$ROOT/scripts/lab.sh" start

# Solved lessons 01 to 05 in each workspace, as a student who did the exercises has them (the hub adds the rest).
LESSONS=(01-mpi-basics 02-allreduce-from-scratch 03-data-parallel-mpi 04-nccl 05-speedup)
for u in $ALICE $BOB; do
  home=$(getent passwd "$u" | cut -d: -f6)
  install -d -o "$u" -g "$u" -m 700 "$home/mpi2nccl"
  for l in "${LESSONS[@]}"; do
    install -o "$u" -g "$u" -m 600 "$BUILD/lessons/instructor/$l.ipynb" "$home/mpi2nccl/"
  done
done

say "== lab: both students run lessons 01 to 05 at the same time through the hub (Chromium)"
list=$(IFS=,; echo "${LESSONS[*]}")
env "HUB_PASSWORD_${ALICE//-/_}=${PW[$ALICE]}" "HUB_PASSWORD_${BOB//-/_}=${PW[$BOB]}" \
    "HUB_PASSWORD_${OUTSIDER//-/_}=${PW[$OUTSIDER]}" \
  node "$ROOT/notebooks/test/browser/hub.mjs" "http://127.0.0.1:$PORT" "$OUT" \
    "$ALICE:$list" "$BOB:$list" "!$OUTSIDER"

say "== lab: $BOB attacks $ALICE's rank engines"
install -m 755 "$ROOT/notebooks/test/lab/hold_engines.py" "$ROOT/notebooks/test/lab/attacks.py" \
  "$ROOT/notebooks/test/lab/neighbours.py" "$ROOT/notebooks/test/lab/slurm_engines.py" \
  "$ROOT/notebooks/test/lab/slurm_nodes.py" "$work/"
chmod 755 "$work"
coproc HOLD { cd /tmp && exec runuser -u $ALICE -- "$JUPYTER_PY" "$work/hold_engines.py"; }
holder=$HOLD_PID
read -r -t 240 word kernel connection <&"${HOLD[0]}" || true
[ "${word:-}" = ready ] || die "lab test: $ALICE's engines did not start (said: ${word:-nothing} ${kernel:-})"
pids=$(pgrep -u $ALICE | paste -sd, -)   # her kernel, its engines, and what started them
# They do listen, in a network of their own: the attack below would otherwise prove nothing.
inside=0
for p in $(pgrep -u $ALICE -f 'NiodevBoot|DaemonBoot'); do
  [ "$(readlink /proc/$p/ns/net)" != "$(readlink /proc/self/ns/net)" ] && \
    awk 'NR > 1 && $4 == "0A"' /proc/$p/net/tcp /proc/$p/net/tcp6 2>/dev/null | grep -q . && inside=$((inside + 1))
done
[ $inside -ge 2 ] || die "lab test: $ALICE's daemon and ranks should listen in a network of their own (found $inside)"
say "$ALICE's kernel (pid $kernel) holds engines: $inside daemon/rank processes listen in their own network"
jupyter_ports=$("$JUPYTER_PY" "$ROOT/notebooks/test/lab/jupyter_ports.py" $ALICE)
slurm_ports=$("$JUPYTER_PY" "$ROOT/notebooks/test/lab/jupyter_ports.py" --slurm $ALICE)
runuser -u $BOB -- "$JUPYTER_PY" "$work/attacks.py" --victim $ALICE --pids "$pids" --checkout "$ROOT" \
  --lessons /opt/mpi2nccl/lessons --jupyter-ports "$jupyter_ports" --slurm-ports "$slurm_ports"
"$JUPYTER_PY" "$work/attacks.py" --control "$connection"

say "== lab: Slurm runs the students' engines and jobs"
jobs=$(squeue --noheader --user $ALICE --format=%j)
[[ "$jobs" == *mpi2nccl* ]] || die "lab test: $ALICE's held engines should run as her Slurm job (squeue: ${jobs:-none})"
say "$ALICE's engines run as her Slurm job ($jobs)"
(cd /tmp && runuser -u $BOB -- "$JUPYTER_PY" "$work/slurm_engines.py")
exec {HOLD[1]}>&-   # her engines are given back
wait "$holder" || true
holder=

say "== lab: lesson 08's two nodes from Slurm: $BOB holds them, $ALICE tries to get in"
coproc NODES { cd /tmp && exec runuser -u $BOB -- "$JUPYTER_PY" "$work/slurm_nodes.py" hold 2>&1; }
holder=$NODES_PID
job=
while read -r -t 300 line <&"${NODES[0]}"; do
  echo "$line"
  [[ "$line" == "held "* ]] && { job=${line#held }; break; }
done
[[ "$job" =~ ^[0-9]+$ ]] || die "lab test: $BOB's lesson 08 did not get the nodes from Slurm (job: ${job:-none})"
(cd /tmp && runuser -u $ALICE -- "$JUPYTER_PY" "$work/slurm_nodes.py" attack "$job")
# the control: from node1, where the job's ranks are, node0's daemon does answer (so the refusals above are the walls)
ip netns exec m2nlab-node1 timeout 5 bash -c 'exec 3<>/dev/tcp/10.211.0.1/40055' \
  || die "lab test: the control failed: node1 does not reach the daemon on node0, so the attacks above proved nothing"
say "control: from node1, $BOB's daemon on node0 answers"
echo release >&"${NODES[1]}"
while read -r -t 120 line <&"${NODES[0]}"; do echo "$line"; [ "$line" = done ] && break; done
rc=0; wait "$holder" || rc=$?
holder=
[ $rc = 0 ] || die "lab test: lesson 08's nodes under Slurm failed a check above"
left=
for ns in $(ip netns list | awk '/^m2nlab-node/ {print $1}'); do
  for p in $(ip netns pids "$ns"); do [ "$(stat -c %U /proc/$p 2>/dev/null)" = $BOB ] && left="$left $ns:$p"; done
done
[ -z "$left" ] || die "lab test: processes of $BOB outlived the allocation on the nodes:$left"
say "nothing of $BOB is left on the nodes (the epilog ended the process it detached)"
say "== lab: every part passed"
