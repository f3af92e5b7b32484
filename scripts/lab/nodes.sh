# The lab's two nodes for lesson 08 (multi-node), sourced by scripts/lab/slurm.sh: the same two simulated machines
# lesson 08 makes when run as root (network namespaces node0 and node1, a veth link between them on 10.211.0.0/24
# shaped to 100 Mbit/s, a private eth0 each), here made once by `lab start` as Slurm's partition "nodes", each with
# its own slurmd. A student's lesson 08 then asks Slurm for both nodes (the whole partition, one student at a time)
# and runs its MPJ daemons and jobs on them as job steps.
#
# Slurm reaches each node through a control link (ctl, 10.212.0.0/24 on the bridge m2nlab, the controller at
# 10.212.0.254). On that link a node accepts only slurmd's port: the MPJ daemons and ranks of the student holding the
# nodes cannot be reached from the machine's other accounts; the cluster link has no route from the machine at all.
# When a job ends, Slurm's epilog kills whatever its user left running in the node's namespace.
# The addresses are lesson 08's (org.mpi2nccl.launch.nodes.NodesPlan); the lab test checks they agree.
LAB_NODES_PARTITION=nodes
LAB_NODES_BRIDGE=m2nlab
LAB_NODES_CONTROLLER=10.212.0.254
LAB_NODES_RATE=100mbit
LAB_NODES_EPILOG=/etc/slurm/mpi2nccl-node-epilog.sh

lab_nodes_ns() { echo "m2nlab-node$1"; }

# Whether this machine can hold the nodes (root and iproute2 with network namespaces, nft for their firewall).
lab_nodes_possible() {
  [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v nft >/dev/null && command -v tc >/dev/null
}

lab_nodes_configured() { [ -f "$SLURM_CONF" ] && grep -q "^PartitionName=$LAB_NODES_PARTITION " "$SLURM_CONF"; }

# The slurm.conf lines of the two nodes (NODE is this machine's NodeName line: the nodes share its CPUs).
lab_nodes_conf() {
  local hw=$1 k
  hw=$(sed -e 's/^NodeName=[^ ]* NodeAddr=[^ ]* //; s/ Gres=[^ ]*//' <<<"$hw")
  for k in 0 1; do echo "NodeName=node$k NodeAddr=10.212.0.$((k + 1)) $hw State=UNKNOWN"; done
  echo "# Lesson 08's two simulated nodes: one student's lesson at a time holds both, for at most half an hour."
  echo "PartitionName=$LAB_NODES_PARTITION Nodes=node0,node1 MaxTime=30 OverSubscribe=EXCLUSIVE State=UP"
}

lab_nodes_install() {
  apt_install lab $(missing_debs iproute2 nftables)
  install -m 755 "$ROOT/scripts/lab/node-epilog.sh" "$LAB_NODES_EPILOG"
}

lab_nodes_down() {
  local k
  for k in 0 1; do
    ip netns del "$(lab_nodes_ns $k)" 2>/dev/null || true
    rm -rf "/etc/netns/$(lab_nodes_ns $k)"
  done
  ip link del "$LAB_NODES_BRIDGE" 2>/dev/null || true
}

lab_nodes_up() {
  lab_nodes_down
  local k ns
  ip link add "$LAB_NODES_BRIDGE" type bridge
  ip addr add "$LAB_NODES_CONTROLLER/24" dev "$LAB_NODES_BRIDGE"
  ip link set "$LAB_NODES_BRIDGE" up
  for k in 0 1; do
    ns=$(lab_nodes_ns $k)
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip link add "$LAB_NODES_BRIDGE-n$k" type veth peer name ctl netns "$ns"
    ip link set "$LAB_NODES_BRIDGE-n$k" master "$LAB_NODES_BRIDGE" up
    ip -n "$ns" addr add "10.212.0.$((k + 1))/24" dev ctl
    ip -n "$ns" link set ctl up
    # the private network: a veth pair with both ends on this node, up, with an address no other node reaches
    ip link add name eth0 netns "$ns" type veth peer name eth0-peer netns "$ns"
    ip -n "$ns" addr add "172.31.$k.1/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set eth0-peer up
    install -d -m 755 "/etc/netns/$ns"
    printf '127.0.0.1 localhost\n10.211.0.1 node0\n10.211.0.2 node1\n' > "/etc/netns/$ns/hosts"
    ip netns exec "$ns" nft -f - <<EOF
table inet mpi2nccl_lab {
  chain input {
    type filter hook input priority 0; policy accept;
    iifname "ctl" ct state established,related accept
    iifname "ctl" tcp dport 6818 accept
    iifname "ctl" drop
  }
}
EOF
  done
  ip link add name eth1 netns "$(lab_nodes_ns 0)" type veth peer name eth1 netns "$(lab_nodes_ns 1)"
  for k in 0 1; do
    ns=$(lab_nodes_ns $k)
    ip -n "$ns" addr add "10.211.0.$((k + 1))/24" dev eth1
    ip -n "$ns" link set eth1 up
    # each node sends at most the link's rate: a token bucket, bursts of 10 ms
    tc -n "$ns" qdisc add dev eth1 root tbf rate "$LAB_NODES_RATE" burst 125000 latency 100ms
  done
}

# slurmd of node K in its namespace, with its host name (a UTS namespace of its own): Slurm knows it as nodeK.
lab_nodes_start_slurmd() {
  local k
  for k in 0 1; do
    pgrep -f "^/usr/sbin/slurmd -N node$k\$" >/dev/null && continue
    install -d -m 755 "/var/lib/slurm/slurmd-node$k"
    ip netns exec "$(lab_nodes_ns $k)" unshare --uts sh -c "hostname node$k && exec /usr/sbin/slurmd -N node$k"
  done
}

lab_nodes_stop_slurmd() {
  pkill -f '^/usr/sbin/slurmd -N node[01]$' || true
}
