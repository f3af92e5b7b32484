# Slurm for the lab, sourced by scripts/lab.sh: Debian's slurmctld, slurmd and munge on this machine, one node whose
# CPUs every student's jobs share and whose GPUs Slurm grants (GRES) to one job at a time. Students' rank engines
# and jobs then run as Slurm job steps (the lab's kernel sets MPI2NCCL_LAUNCHER=slurm).
SLURM_CONF=/etc/slurm/slurm.conf
SLURM_MARK="Written by ./build.sh lab install"
source "$(dirname "${BASH_SOURCE[0]}")/nodes.sh"

slurm_ours() { [ -f "$SLURM_CONF" ] && grep -q "$SLURM_MARK" "$SLURM_CONF"; }

# The GPUs Slurm grants: /dev/nvidia0, /dev/nvidia1, ... (MPI2NCCL_LAB_GPU_FILES overrides, for a check of the
# configuration on a machine without GPUs).
slurm_gpu_files() {
  if [ -n "${MPI2NCCL_LAB_GPU_FILES:-}" ]; then echo "$MPI2NCCL_LAB_GPU_FILES"; return; fi
  ls /dev/nvidia[0-9]* 2>/dev/null | sort -V | paste -sd' ' - || true
}

# slurm_write_config DIR [nodes]: slurm.conf and gres.conf for this machine in DIR; with "nodes", lesson 08's two
# nodes too (partition "nodes"; the controller then listens where they reach it, on the nodes' control bridge).
slurm_write_config() {
  local dir=$1 with_nodes=${2:-} host node files n controller=127.0.0.1 nodes=
  host=$(hostname -s)
  node=$(slurmd -C | head -1 | sed "s/^NodeName=[^ ]*/NodeName=$host NodeAddr=127.0.0.1/")
  files=$(slurm_gpu_files)
  n=$(wc -w <<<"$files")
  : > "$dir/gres.conf"
  if [ "$n" -gt 0 ]; then
    node="$node Gres=gpu:$n"
    for f in $files; do echo "NodeName=$host Name=gpu File=$f" >> "$dir/gres.conf"; done
  fi
  if [ "$with_nodes" = nodes ]; then
    controller=$LAB_NODES_CONTROLLER
    nodes=$(lab_nodes_conf "$node")
  fi
  sed -e "s|@HOST@|$host|; s|@CONTROLLER@|$controller|; s|@NODE@|$node|; s|@NODENAME@|$host|" \
    "$ROOT/scripts/lab/slurm.conf" > "$dir/slurm.conf"
  awk -v nodes="$nodes" '$0 != "@NODES@" { print; next } nodes != "" { print nodes }' "$dir/slurm.conf" > "$dir/slurm.conf.new"
  mv "$dir/slurm.conf.new" "$dir/slurm.conf"
  rm -f "$dir/cgroup.conf"
  # No cgroup is used (proctrack/linuxproc, task/none), but slurmd loads a cgroup plugin at start, and cgroup/v2
  # fails where /sys/fs/cgroup is read-only (a container), and the nodes' slurmd see their namespace's own /sys
  # with no cgroup mounted: there the v1 plugin, on an empty folder, loads untouched.
  if [ "$with_nodes" = nodes ] || { [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] \
       && ! [ -w /sys/fs/cgroup/cgroup.procs ]; }; then
    install -d -m 755 "${SLURM_CGROUP_NONE:-/var/lib/slurm/no-cgroup}"
    printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=%s\n' "${SLURM_CGROUP_NONE:-/var/lib/slurm/no-cgroup}" > "$dir/cgroup.conf"
  fi
  chmod 644 "$dir"/*.conf
}

# slurm_install [nodes]: Slurm for this machine; with "nodes", lesson 08's two nodes as a partition of their own.
slurm_install() {
  local with_nodes=${1:-}
  apt_install lab $(missing_debs slurmctld slurmd slurm-client munge)
  if [ -f "$SLURM_CONF" ] && ! slurm_ours; then
    say "lab: Slurm: this machine's own $SLURM_CONF is kept (its default partition runs the students' jobs)"
    return 0
  fi
  install -d -m 755 /etc/slurm
  if [ "$with_nodes" = nodes ]; then
    lab_nodes_possible || apt_install lab $(missing_debs iproute2 nftables)
    lab_nodes_possible || die "lab install: lesson 08's nodes need root, ip, tc and nft (or give --no-nodes)"
  fi
  install -m 755 "$ROOT/scripts/lab/node-epilog.sh" "$LAB_NODES_EPILOG"
  slurm_write_config /etc/slurm "$with_nodes"
  install -d -o slurm -g slurm -m 755 /var/lib/slurm /var/lib/slurm/slurmctld /var/log/slurm
  say "lab: Slurm configured: $(grep -o '^NodeName=.*' "$SLURM_CONF" | head -1 | sed 's/ State=UNKNOWN//')"
  if lab_nodes_configured; then say "lab: lesson 08's two nodes: partition $LAB_NODES_PARTITION (node0, node1; one student at a time)"; fi
}

systemd_runs() { [ -d /run/systemd/system ]; }

slurm_start() {
  [ -f "$SLURM_CONF" ] || return 0
  # the nodes' network first: the controller's address is on its bridge
  if lab_nodes_configured && slurm_ours; then lab_nodes_up; fi
  if systemd_runs; then
    systemctl start munge slurmctld slurmd
  else   # a machine without systemd (a container): the daemons by hand, each unless it runs
    install -d -o munge -g munge -m 755 /run/munge
    pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
    pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld
    pgrep -fx /usr/sbin/slurmd >/dev/null || /usr/sbin/slurmd
  fi
  if lab_nodes_configured && slurm_ours; then lab_nodes_start_slurmd; fi
  local deadline=$((SECONDS + 60)) state
  until state=$(sinfo --noheader --format=%T 2>/dev/null) && [ -n "$state" ] \
        && ! grep -qvE '^(idle|mixed|allocated)$' <<<"$state"; do
    [ $SECONDS -lt $deadline ] || die "Slurm's nodes did not come up within 60 s (sinfo: ${state:-no answer}); logs in /var/log/slurm"
    sleep 0.5
  done
  say "lab: Slurm runs: $(sinfo --noheader --format='partition %P, %D node(s), %c CPUs, GRES %G' | paste -sd';' - | sed 's/;/; /g')"
}

slurm_stop() {
  [ -f "$SLURM_CONF" ] && slurm_ours || return 0
  # The class ends: every job ends with it. Stopped under running jobs, slurmctld would find them again at its next
  # start and count their CPUs and GPUs as taken.
  if sinfo --noheader >/dev/null 2>&1; then
    scancel --partition=lab 2>/dev/null || true
    scancel --partition=$LAB_NODES_PARTITION 2>/dev/null || true
    local deadline=$((SECONDS + 20))
    while [ -n "$(squeue --noheader 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
  fi
  if systemd_runs; then
    systemctl stop slurmd slurmctld
  else
    pkill -x slurmd || true
    pkill -x slurmctld || true
  fi
  # gone before anything starts them again (a start that found the old one still saving its state would start none)
  lab_nodes_stop_slurmd
  local deadline=$((SECONDS + 30))
  while { pgrep -x slurmctld || pgrep -x slurmd; } >/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  lab_nodes_down
  say "lab: Slurm stopped (munge keeps running)"
}

slurm_status() {
  [ -f "$SLURM_CONF" ] || { say "lab: no Slurm on this machine (jobs run locally)"; return 0; }
  sinfo 2>&1 | sed 's/^/  /'
  squeue 2>&1 | sed 's/^/  /'
}
