#!/usr/bin/env bash
# Slurm's GPU grant (GRES) on a GPU machine, with Slurm carried from a Debian machine (scripts/gpu/slurm-peer.sh),
# configured the way ./build.sh lab install configures a lab (scripts/lab/slurm.sh), with root's own paths under /tmp:
#  1. sinfo        the node offers its GPUs as GRES
#  2. grant        a step given one GPU sees it as CUDA_VISIBLE_DEVICES
#  3. hello        mpjrun --launcher slurm GpuHello: the rank runs in a Slurm step and uses its granted GPU
#  4. busy         while another job holds every GPU, a job asking for one is refused, saying so (after srun's wait)
#  5. junit        every JUnit test tagged "gpu" with MPI2NCCL_LAUNCHER=slurm: all their jobs as Slurm steps
# Usage, as root, from the repository root with the bundle and the Slurm peer unpacked:
#   BUNDLE=/tmp/b SLURM_PEER=/tmp/slurm OUT=/tmp/out bash scripts/gpu/slurm-gres.sh
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "slurm-gres"
P=${SLURM_PEER:-/tmp/slurm}
[ "$(id -u)" = 0 ] || { note "skipped: slurmd runs as root"; exit 0; }
[ -x "$P/bin/slurmd" ] || { note "no Slurm peer at $P (bash scripts/gpu/slurm-peer.sh builds it)"; exit 2; }
export PATH="$P/bin:$PATH" LD_LIBRARY_PATH="$P/lib:$P/plugins${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ROOT=$(pwd)
say() { printf '%s\n' "$*"; }
die() { printf '%s\n' "$*" >&2; exit 1; }
source "$ROOT/scripts/lab/slurm.sh"

s=/tmp/slurm-gres
rm -rf "$s" && mkdir -p "$s/etc" "$s/state" "$s/spool" "$s/log" "$s/munge"
chmod 700 "$s/munge"
dd if=/dev/urandom of="$s/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$s/munge/munge.key"
munged --force --key-file="$s/munge/munge.key" --socket="$s/munge/munge.socket" --pid-file="$s/munge/munged.pid" \
  --log-file="$s/log/munged.log" --seed-file="$s/munge/seed" > "$OUT/munged.txt" 2>&1
SLURM_CGROUP_NONE="$s/cgroup" slurm_write_config "$s/etc"   # with a cgroup.conf where cgroup v2 is read-only
sed -i -e "s|^SlurmUser=.*|SlurmUser=root\nPluginDir=$P/plugins\nAuthInfo=socket=$s/munge/munge.socket|" \
  -e "s|/var/lib/slurm/slurmctld|$s/state|; s|/var/lib/slurm/slurmd-%n|$s/spool/%n|; s|/run/|$s/|g; s|/var/log/slurm|$s/log|g" \
  "$s/etc/slurm.conf"
mkdir -p "$s/spool/$(hostname -s)"
export SLURM_CONF="$s/etc/slurm.conf"
cp "$s/etc/"*.conf "$OUT/"
slurmctld > "$OUT/slurmctld.txt" 2>&1
slurmd -d "$P/bin/slurmstepd" > "$OUT/slurmd.txt" 2>&1
stop_all() {
  scancel --user root 2>/dev/null; pkill -x slurmd; pkill -x slurmctld; pkill -x munged
  cp "$s"/log/* "$OUT/" 2>/dev/null
}
trap stop_all EXIT
up=no
for i in $(seq 60); do sinfo --noheader --format=%T 2>/dev/null | grep -q idle && { up=yes; break; }; sleep 0.5; done
if [ $up = no ]; then
  note "Slurm did not come up within 30 s; its logs:"
  for f in "$s"/log/* "$OUT"/munged.txt "$OUT"/slurmctld.txt "$OUT"/slurmd.txt; do
    [ -s "$f" ] && { note "-- $f"; tail -n 15 "$f" | cut -c1-300 | tee -a "$SUMMARY"; }
  done
  exit 1
fi

run sinfo 20 sinfo --format='%P %D %c %G %T'
sed 's/^/    /' "$OUT/sinfo.txt" | tee -a "$SUMMARY"
run grant 60 srun --ntasks=1 --gres=gpu:1 sh -c 'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES SLURM_JOB_ID=$SLURM_JOB_ID"; nvidia-smi -L'
sed 's/^/    /' "$OUT/grant.txt" | tee -a "$SUMMARY"
MPI2NCCL_PRIVATE_NETWORK=auto run hello 180 "$BUNDLE/bin/mpi2nccl" mpjrun -np 1 --device niodev --launcher slurm \
  org.mpi2nccl.launch.GpuHello
tail -n 4 "$OUT/hello.txt" | cut -c1-300 | sed 's/^/    /' | tee -a "$SUMMARY"
n=$(gpu_count)
srun --ntasks=1 --gres=gpu:"$n" --job-name=holder sleep 300 > "$OUT/holder.txt" 2>&1 &
for i in $(seq 40); do squeue --noheader --name=holder --states=R | grep -q . && break; sleep 0.5; done
if run busy 120 "$BUNDLE/bin/mpi2nccl" mpjrun -np 1 --device niodev --launcher slurm --gpus 1 org.mpi2nccl.launch.GpuHello; then
  note "    busy: WRONG: the job ran while another job held every GPU"
elif grep -q "Slurm did not run the job" "$OUT/busy.txt"; then
  note "    busy: refused, as it should be (every GPU held by another job)"
fi
scancel --name=holder; wait
MPI2NCCL_LAUNCHER=slurm JUNIT_REPORTS="$OUT/junit" run junit 380 "$BUNDLE/bin/mpi2nccl-test" --include-tag gpu
junit_totals "$OUT/junit.txt"
grep -E 'MethodSource' "$OUT/junit.txt" | sed -E "s/.*className = '([^']*)', methodName = '([^']*)'.*/    failed test: \1.\2/" | tee -a "$SUMMARY"
note "steps Slurm ran: $(squeue --noheader --states=all --format=%i | wc -l) jobs"
