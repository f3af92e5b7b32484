package org.mpi2nccl.launch.nodes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The network of {@link NodesPlan}'s nodes, made with {@code ip}: a network namespace per node (its own
 * interfaces, addresses and ports), joined by a veth pair (two nodes) or by a bridge in a namespace of its own
 * (more nodes: the switch). Each node also has a private interface ({@link NodesPlan#SIDE}) and its own
 * /etc/hosts ({@code ip netns exec} shows /etc/netns/NAME/hosts as /etc/hosts).
 *
 * <p>{@link #close()} deletes the namespaces, which deletes their interfaces with them, and the hosts files.
 * Names carry this JVM's process id: namespaces left by a JVM that was killed are deleted by the next one.
 */
public final class NodeNetwork implements NodePlacement {
    private static final String PREFIX = "m2n";
    private static final Pattern OURS = Pattern.compile(PREFIX + "(\\d+)-\\d+-(node\\d+|switch)");
    private static final AtomicInteger NETWORKS = new AtomicInteger();

    private final NodesPlan plan;
    private final String tag = PREFIX + ProcessHandle.current().pid() + "-" + NETWORKS.incrementAndGet();
    private final List<String> made = new ArrayList<>();

    private NodeNetwork(NodesPlan plan) {
        this.plan = plan;
    }

    /** Makes the network of {@code plan}; on failure, deletes what it made and throws {@link NodesException}. */
    public static NodeNetwork make(NodesPlan plan) {
        Ip.whyNot().ifPresent(why -> {
            throw new NodesException(why);
        });
        removeLeftovers();
        NodeNetwork n = new NodeNetwork(plan);
        try {
            n.build();
            return n;
        } catch (RuntimeException e) {
            n.close();
            throw e;
        }
    }

    /** The namespace of node {@code k}. */
    public String namespace(int node) {
        plan.hostname(node);   // checks the number
        return tag + "-node" + node;
    }

    /** Every namespace this network made (nodes, and the switch if any): what a test lists to see they are gone. */
    public List<String> namespaces() {
        return List.copyOf(made);
    }

    @Override
    public NodesPlan plan() {
        return plan;
    }

    /**
     * The words that run a command on node {@code k}: in its namespace, with its host name (a UTS namespace of its
     * own: {@code hostname} says nodeK, as on a real machine). Put them before the command.
     */
    @Override
    public List<String> prefix(int node) {
        return List.of(Ip.find("ip").map(Path::toString).orElse("ip"), "netns", "exec", namespace(node),
                "unshare", "--uts", "sh", "-c", "hostname \"$0\" && exec \"$@\"", plan.hostname(node));
    }

    private void build() {
        for (int k = 0; k < plan.nodes(); k++) addNamespace(namespace(k));
        if (plan.nodes() == 2) {
            Ip.run("the veth pair between the nodes", "ip", "link", "add", "name", NodesPlan.FABRIC, "netns", namespace(0),
                    "type", "veth", "peer", "name", NodesPlan.FABRIC, "netns", namespace(1));
        } else {
            String sw = tag + "-switch";
            addNamespace(sw);
            Ip.run("the bridge", "ip", "-n", sw, "link", "add", "br0", "type", "bridge");
            Ip.run("the bridge up", "ip", "-n", sw, "link", "set", "br0", "up");
            for (int k = 0; k < plan.nodes(); k++) {
                String port = "port" + k;
                Ip.run("the link of node " + k, "ip", "link", "add", "name", NodesPlan.FABRIC, "netns", namespace(k),
                        "type", "veth", "peer", "name", port, "netns", sw);
                Ip.run("the switch port of node " + k, "ip", "-n", sw, "link", "set", port, "master", "br0", "up");
            }
        }
        for (int k = 0; k < plan.nodes(); k++) configureNode(k);
    }

    private void addNamespace(String ns) {
        Ip.run("ip netns add", "ip", "netns", "add", ns);
        made.add(ns);
    }

    private void configureNode(int k) {
        String ns = namespace(k);
        Ip.run("loopback up", "ip", "-n", ns, "link", "set", "lo", "up");
        Ip.run("address of node " + k, "ip", "-n", ns, "addr", "add", plan.address(k) + "/24", "dev", NodesPlan.FABRIC);
        Ip.run("link up on node " + k, "ip", "-n", ns, "link", "set", NodesPlan.FABRIC, "up");
        if (plan.linkRate() != null) shape(ns, plan.linkRate());
        // The private network: a veth pair with both ends on this node, so it is up and has an address nobody else reaches.
        Ip.run("private interface of node " + k, "ip", "link", "add", "name", NodesPlan.SIDE, "netns", ns,
                "type", "veth", "peer", "name", NodesPlan.SIDE + "-peer", "netns", ns);
        Ip.run("private address of node " + k, "ip", "-n", ns, "addr", "add", plan.sideAddress(k) + "/24", "dev", NodesPlan.SIDE);
        Ip.run("private link up", "ip", "-n", ns, "link", "set", NodesPlan.SIDE, "up");
        Ip.run("private link up", "ip", "-n", ns, "link", "set", NodesPlan.SIDE + "-peer", "up");
        writeHosts(ns);
    }

    /** A token bucket on the node's sending side: at most {@code rate}, bursts of 10 ms worth. */
    private static void shape(String ns, String rate) {
        long burstBytes = Math.max(32 * 1024, bitsPerSecond(rate) / 8 / 100);
        Ip.run("shaping the link to " + rate + " (tc tbf)", "tc", "-n", ns, "qdisc", "add", "dev", NodesPlan.FABRIC, "root",
                "tbf", "rate", rate, "burst", Long.toString(burstBytes), "latency", "100ms");
    }

    static long bitsPerSecond(String rate) {
        Matcher m = Pattern.compile("(\\d+(?:\\.\\d+)?)([kmg]?)(bit|bps)").matcher(rate.toLowerCase(Locale.ROOT));
        if (!m.matches()) throw new IllegalArgumentException("not a tc rate: " + rate);
        double v = Double.parseDouble(m.group(1)) * switch (m.group(2)) {
            case "k" -> 1e3;
            case "m" -> 1e6;
            case "g" -> 1e9;
            default -> 1;
        };
        return (long) (m.group(3).equals("bps") ? v * 8 : v);
    }

    private void writeHosts(String ns) {
        try {
            Path etc = Files.createDirectories(Path.of("/etc/netns", ns));
            Files.writeString(etc.resolve("hosts"), plan.hostsFile());
        } catch (IOException e) {
            throw new NodesException("simulated nodes: cannot write /etc/netns/" + ns + "/hosts (" + e.getMessage()
                    + "): run as root");
        }
    }

    /** Deletes every namespace (with its interfaces) and hosts file this network made. Safe to call twice. */
    @Override
    public synchronized void close() {
        for (String ns : List.copyOf(made)) {
            delete(ns);
            made.remove(ns);
        }
    }

    private static void delete(String ns) {
        Ip.tryRun("ip", "netns", "del", ns);
        Path etc = Path.of("/etc/netns", ns);
        try (var walk = Files.walk(etc)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // not there
        }
    }

    /** The namespaces of simulated nodes that exist now (any JVM's). */
    public static List<String> existing() {
        List<String> out = new ArrayList<>();
        for (String line : Ip.tryRun("ip", "netns", "list").output().split("\n")) {
            String name = line.trim().split("\\s+")[0];
            if (OURS.matcher(name).matches()) out.add(name);
        }
        return out;
    }

    /** Deletes the namespaces left by JVMs that no longer run (killed before they could clean up). */
    static void removeLeftovers() {
        for (String ns : existing()) {
            Matcher m = OURS.matcher(ns);
            if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).map(ProcessHandle::isAlive).orElse(false)) continue;
            delete(ns);
        }
    }
}
