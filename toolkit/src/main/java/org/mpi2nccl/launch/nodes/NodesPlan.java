package org.mpi2nccl.launch.nodes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What K simulated nodes look like, before anything is made: their names, addresses, interfaces and the
 * environment each node's processes get. Pure data: every rule here can be checked without root.
 *
 * <p>Each node is a network namespace with its own host name ({@code node0}, {@code node1}, ...) and two
 * interfaces, as a real server has:
 * <ul>
 *   <li>{@value #FABRIC} on the cluster network {@code 10.211.0.0/24} ({@code node k} is {@code 10.211.0.(k+1)}):
 *       the link that joins the nodes (a veth pair for two nodes, a bridge for more);</li>
 *   <li>{@value #SIDE} on a network only this node sees ({@code 172.31.k.1/24}), like a management network or
 *       Docker's bridge: an address the other nodes cannot reach. A library that picks it fails.</li>
 * </ul>
 * Every node gets {@code NCCL_HOSTID} = its name (NCCL otherwise hashes the host name and boot id, and would
 * take the namespaces for one machine), {@code NCCL_SOCKET_IFNAME} = {@value #FABRIC}, {@code NCCL_IB_DISABLE=1}
 * (the veth link is plain TCP: NCCL must use its socket transport, not an InfiniBand card the host may have),
 * and with {@link #gpusPerNode} its own GPUs in {@code CUDA_VISIBLE_DEVICES}.
 */
public final class NodesPlan {
    /** The interface of the cluster network, the same name on every node. */
    public static final String FABRIC = "eth1";
    /** The interface of each node's private network. */
    public static final String SIDE = "eth0";
    static final String SUBNET = "10.211.0.";
    /** Where each node's MPJ daemon listens (each namespace has its own ports). */
    public static final int DAEMON_PORT = 40055;

    private final int nodes;
    private int gpusPerNode;
    private String linkRate;
    private final Map<String, String> env = new LinkedHashMap<>();
    private final Map<Integer, Map<String, String>> nodeEnv = new TreeMap<>();

    private NodesPlan(int nodes) {
        if (nodes < 2 || nodes > 16) {
            throw new IllegalArgumentException("simulated nodes: the number of nodes must be 2..16 (got " + nodes + ")");
        }
        this.nodes = nodes;
    }

    public static NodesPlan of(int nodes) {
        return new NodesPlan(nodes);
    }

    /** Each node gets this many GPUs, in order: node k sees GPUs k*n .. k*n+n-1. 0 (default): leave CUDA_VISIBLE_DEVICES alone. */
    public NodesPlan gpusPerNode(int n) {
        if (n < 0) throw new IllegalArgumentException("simulated nodes: GPUs per node must be 0 or more (got " + n + ")");
        this.gpusPerNode = n;
        return this;
    }

    /**
     * Shapes the cluster link like a real network: every node sends at most this rate ({@code tc}'s token bucket,
     * e.g. "1gbit", "100mbit"). Null (default): the veth link's own speed, which is memory-copy speed.
     */
    public NodesPlan linkRate(String rate) {
        if (rate != null && !rate.matches("\\d+(\\.\\d+)?([kmg]?bit|[kmg]?bps)")) {
            throw new IllegalArgumentException("simulated nodes: link rate '" + rate + "' is not a tc rate: use e.g. 1gbit, 100mbit");
        }
        this.linkRate = rate;
        return this;
    }

    /** An environment variable for every node's processes; it replaces the plan's own (e.g. a wrong NCCL_SOCKET_IFNAME). */
    public NodesPlan env(String name, String value) {
        env.put(checkName(name), value);
        return this;
    }

    /** An environment variable for one node only; it replaces everything else. */
    public NodesPlan env(int node, String name, String value) {
        checkNode(node);
        nodeEnv.computeIfAbsent(node, k -> new LinkedHashMap<>()).put(checkName(name), value);
        return this;
    }

    public int nodes() {
        return nodes;
    }

    public int gpusPerNode() {
        return gpusPerNode;
    }

    public String linkRate() {
        return linkRate;
    }

    /** node0, node1, ...: the node's host name. */
    public String hostname(int node) {
        checkNode(node);
        return "node" + node;
    }

    /** The node's address on the cluster network. */
    public String address(int node) {
        checkNode(node);
        return SUBNET + (node + 1);
    }

    /** The node's address on its private network, which no other node can reach. */
    public String sideAddress(int node) {
        checkNode(node);
        return "172.31." + node + ".1";
    }

    /** The GPUs node {@code node} sees, as CUDA_VISIBLE_DEVICES lists them; empty without {@link #gpusPerNode}. */
    public String gpus(int node) {
        checkNode(node);
        List<String> ids = new ArrayList<>();
        for (int g = 0; g < gpusPerNode; g++) ids.add(Integer.toString(node * gpusPerNode + g));
        return String.join(",", ids);
    }

    /** The environment of every process on node {@code node}: the plan's own variables, then the overrides. */
    public Map<String, String> environment(int node) {
        checkNode(node);
        Map<String, String> e = new LinkedHashMap<>();
        e.put("NCCL_HOSTID", hostname(node));
        e.put("NCCL_SOCKET_IFNAME", FABRIC);
        e.put("NCCL_IB_DISABLE", "1");
        if (gpusPerNode > 0) e.put("CUDA_VISIBLE_DEVICES", gpus(node));
        e.putAll(env);
        e.putAll(nodeEnv.getOrDefault(node, Map.of()));
        return e;
    }

    /** The machines file of a job on every node: one address a line (MPJ deals ranks out in blocks, in this order). */
    public String machinesFile() {
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < nodes; k++) s.append(address(k)).append('\n');
        return s.toString();
    }

    /** The /etc/hosts every node sees: each node's name with its cluster address. */
    String hostsFile() {
        StringBuilder s = new StringBuilder("127.0.0.1 localhost\n");
        for (int k = 0; k < nodes; k++) s.append(address(k)).append(' ').append(hostname(k)).append('\n');
        return s.toString();
    }

    /** One line a node, for people: name, addresses, GPUs, the NCCL variables. */
    public String describe() {
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < nodes; k++) {
            s.append(String.format("%-6s %s %s/24, %s %s/24 (private)%s, %s%n", hostname(k), FABRIC, address(k), SIDE,
                    sideAddress(k), gpusPerNode > 0 ? ", GPUs " + gpus(k) : "", environment(k)));
        }
        s.append(nodes == 2 ? "link: a veth pair" : "link: a bridge (a switch) with a veth pair to each node");
        s.append(linkRate != null ? ", each node sends at most " + linkRate + " (tc token bucket)" : ", unshaped (memory-copy speed)");
        return s.append('\n').toString();
    }

    private void checkNode(int node) {
        if (node < 0 || node >= nodes) {
            throw new IllegalArgumentException("simulated nodes: no node " + node + " (nodes are 0.." + (nodes - 1) + ")");
        }
    }

    private static String checkName(String name) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("simulated nodes: '" + name + "' is not an environment variable name");
        }
        return name;
    }
}
