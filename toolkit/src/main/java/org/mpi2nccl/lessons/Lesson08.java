package org.mpi2nccl.lessons;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchRow;
import org.mpi2nccl.launch.Launcher;
import org.mpi2nccl.launch.nodes.NodesPlan;
import org.mpi2nccl.launch.nodes.SimulatedNodes;
import org.mpi2nccl.launch.nodes.SlurmNodeAllocation;
import org.mpi2nccl.launch.nodes.SocketBootstrap;
import org.mpi2nccl.launch.nodes.WhereAmI;
import org.mpi2nccl.bench.WithinAndAcross;

/**
 * Lesson 08 (multi-node): two simulated nodes on this machine, the ranks on them, bandwidth within a node and across
 * the link, the interface mistakes of a multi-node set-up made on purpose, and the check of the exercise (choosing the
 * interface that reaches the other node). Every method that needs the nodes says why when there are none (no root).
 */
public final class Lesson08 {
    /** The link between the nodes, shaped so that a CPU ring feels it: 100 Mbit/s is 12.5 MB/s. */
    public static final String LINK_RATE = "100mbit";
    static final Duration JOB_TIMEOUT = Duration.ofSeconds(60);
    /** Results of scripts/gpu/two-nodes.sh on a machine with 2 GPUs. */
    static final Recorded TWO_NODES = new Recorded("two-nodes-2gpu");

    private Lesson08() {
    }

    /**
     * Why there can be no simulated nodes here, or "" when there can: on a lab server whose jobs Slurm runs, the
     * lab's partition of nodes; elsewhere, namespaces made as root.
     */
    public static String whyNot() {
        if (underSlurm()) return SlurmNodeAllocation.whyNot(NodesPlan.of(2)).orElse("");
        return SimulatedNodes.whyNotHere().orElse("");
    }

    private static boolean underSlurm() {
        return Launcher.fromEnvironment(System.getenv()) == Launcher.SLURM;
    }

    /**
     * Two nodes joined by a link shaped to {@link #LINK_RATE}: on a lab server, Slurm's two nodes, held until
     * {@code nodes.close()}; elsewhere made here. Null (and the reason printed) when there can be none.
     */
    public static SimulatedNodes startNodes() {
        String why = whyNot();
        if (!why.isEmpty()) {
            System.out.println("No simulated nodes on this machine: " + why + ". The cells below say so and go on.");
            return null;
        }
        SimulatedNodes nodes;
        NodesPlan plan = NodesPlan.of(2).linkRate(LINK_RATE);   // on a lab server, its link is shaped to the same rate
        if (underSlurm()) {
            nodes = SimulatedNodes.startUnderSlurm(plan);
            System.out.println("Slurm gave this notebook the lab's two nodes (job " + ((SlurmNodeAllocation) nodes.placement()).jobId()
                    + "); other students wait for them until the last cell gives them back.");
        } else {
            nodes = SimulatedNodes.start(plan);
        }
        System.out.print(nodes.plan().describe());
        return nodes;
    }

    /** The IPv4 interfaces of node {@code node} (name to address/prefix), read live; without nodes, what node0 would have. */
    public static Map<String, String> interfaces(SimulatedNodes nodes, int node) {
        Map<String, String> out = new LinkedHashMap<>();
        if (nodes == null) {
            NodesPlan p = NodesPlan.of(2);
            out.put("lo", "127.0.0.1/8");
            out.put(NodesPlan.SIDE, p.sideAddress(node) + "/24");
            out.put(NodesPlan.FABRIC, p.address(node) + "/24");
            return out;
        }
        var run = nodes.runOn(node, List.of("ip", "-o", "-4", "addr", "show"), Map.of(), JOB_TIMEOUT, null);
        for (String line : run.lines()) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 3 && f[2].equals("inet")) out.put(f[1], f[3]);
        }
        return out;
    }

    /** An IPv4 address as a 32-bit number ("10.211.0.2" is 0x0AD30002). */
    public static int ipv4(String address) {
        String[] p = address.trim().split("\\.");
        if (p.length != 4) throw new IllegalArgumentException("not an IPv4 address: " + address);
        int v = 0;
        for (String part : p) v = v << 8 | Integer.parseInt(part);
        return v;
    }

    /** Runs {@code mpjrun ARGS} on the nodes and returns what the student sees: the job's lines, without Java's stack lines. */
    public static String mpjrun(SimulatedNodes nodes, String... args) {
        if (nodes == null) return "(not run: " + whyNot() + ")";
        List<String> cmd = new ArrayList<>(List.of("mpjrun", "--timeout", "40s"));
        cmd.addAll(List.of(args));
        var run = nodes.run(cmd, JOB_TIMEOUT, null);
        StringBuilder s = new StringBuilder();
        for (String line : run.lines()) {
            if (line.matches("^(\\[[^]]*\\] )?\\s+(at |\\.\\.\\. \\d+ more).*") || line.contains("NoSuchElementException")
                    || line.contains("EXIT@Ping") || line.contains("IOMessagesThread")) continue;   // MPJ's starter noise
            s.append(line).append('\n');
        }
        return s.append(run.timedOut() ? "(stopped at the time limit)\n" : "exit code " + run.exitCode() + "\n").toString();
    }

    /** 4 ranks on the 2 nodes: where each one runs. */
    public static String ranksOnNodes(SimulatedNodes nodes) {
        return mpjrun(nodes, "-np", "4", WhereAmI.class.getName());
    }

    /** The bootstrap of NCCL over sockets ({@link SocketBootstrap}), rank 0 on node0 using {@code ifname}, rank 1 on node1. */
    public static String bootstrap(SimulatedNodes nodes, String ifname) {
        return mpjrun(nodes, "-np", "2", SocketBootstrap.class.getName(), "ifname=" + ifname);
    }

    /** A job whose machines file names an address no node has. */
    public static String unreachableHost(SimulatedNodes nodes) throws IOException {
        if (nodes == null) return mpjrun(null);
        Path wrong = Files.writeString(nodes.file("machines.typo"), nodes.plan().address(0) + "\n10.211.0.9\n");
        return mpjrun(nodes, "-np", "2", "--machines", wrong.toString(), WhereAmI.class.getName());
    }

    /**
     * The CPU ring within node0 and across the link, 16 KiB to 4 MiB (a short run, {@link LessonLength}, stops at
     * 1 MiB: a link of {@link #LINK_RATE} carries 12.5 MB a second, so the 4 MiB all-reduces are most of the run);
     * null without nodes.
     */
    public static BenchResults bandwidth(SimulatedNodes nodes) {
        if (nodes == null) return null;
        String largest = LessonLength.current().pick(4, 1) + "M";
        return WithinAndAcross.measure(nodes, "ring", List.of("-b", "16K", "-e", largest, "-f", "4"), Duration.ofMinutes(2), null);
    }

    /** The sentence the measurement says, at the largest size. */
    public static String bandwidthSentence(BenchResults r) {
        if (r == null) return "Not measured here (" + whyNot() + ").";
        BenchRow within = largest(r, "within");
        BenchRow across = largest(r, "across");
        double link = 100e6 / 8 / 1e9;
        return String.format(Locale.ROOT, "At %d MiB the ring moved %.3f GB/s within a node and %.3f GB/s across nodes: %.1fx %s."
                        + " The link allows %.4f GB/s, so across nodes the ring ran at %.0f%% of the link.",
                within.bytes() >> 20, within.busbw(), across.busbw(), within.busbw() / across.busbw(),
                within.busbw() > across.busbw() ? "faster within a node" : "slower within a node (the machine was busy)",
                link, 100 * across.busbw() / link);
    }

    private static BenchRow largest(BenchResults r, String where) {
        return r.rows().stream().filter(b -> b.communicator().contains(where))
                .max(java.util.Comparator.comparingLong(BenchRow::bytes)).orElseThrow();
    }

    /** A file recorded on the 2-GPU machine (its source line first), or a sentence saying where it comes from. */
    public static String recorded(String rel) throws IOException {
        Path f = TWO_NODES.file(rel);
        if (f == null) {
            return "Not recorded yet: on a machine with 2 GPUs, scripts/gpu/two-nodes.sh records NCCL's own output into "
                    + TWO_NODES.folder() + "/" + rel + ".";
        }
        return TWO_NODES.source(rel) + "\n" + String.join("\n", Files.readAllLines(f));
    }

    /** NCCL's all-reduce within a node (NVLink) and across the simulated nodes (sockets), recorded; null if not recorded. */
    public static BenchResults recordedNccl() throws IOException {
        Path within = TWO_NODES.file("within/bandwidth.csv");
        Path across = TWO_NODES.file("across/bandwidth.csv");
        if (within == null || across == null) return null;
        return BenchResults.concat(List.of(WithinAndAcross.relabel(BenchResults.readCsv(within), "nccl within a node"),
                WithinAndAcross.relabel(BenchResults.readCsv(across), "nccl across nodes")));
    }

    /** What the recorded NCCL run says at its largest size, or where it comes from when there is none. */
    public static String recordedNcclSentence(BenchResults r) throws IOException {
        if (r == null) return recorded("within/bandwidth.csv");
        BenchRow within = largest(r, "within");
        BenchRow across = largest(r, "across");
        return String.format(Locale.ROOT, "%s%nAt %d MiB NCCL moved %.1f GB/s within a node and %.2f GB/s across the"
                + " simulated nodes (sockets over the veth link): %.0fx %s.", TWO_NODES.source("across/bandwidth.csv"),
                across.bytes() >> 20, within.busbw(), across.busbw(), within.busbw() / across.busbw(),
                within.busbw() > across.busbw() ? "less across nodes" : "more across nodes");
    }

    // --- the exercise ---------------------------------------------------------------------------------------

    /** One case of the check: a node's interfaces, the peer's address, and the right interface (null: none). */
    private record Case(Map<String, String> interfaces, String peer, String expected) {
    }

    private static Map<String, String> table(String... nameCidr) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameCidr.length; i += 2) m.put(nameCidr[i], nameCidr[i + 1]);
        return m;
    }

    private static List<Case> cases() {
        return List.of(
                new Case(table("lo", "127.0.0.1/8", "eth0", "172.31.0.1/24", "eth1", "10.211.0.1/24"), "10.211.0.2", "eth1"),
                new Case(table("lo", "127.0.0.1/8", "docker0", "172.17.0.1/16", "ens5", "192.168.1.20/24"), "192.168.1.21", "ens5"),
                new Case(table("lo", "127.0.0.1/8", "eth0", "10.0.0.5/24", "ib0", "10.1.0.5/16"), "10.1.7.9", "ib0"),
                new Case(table("lo", "127.0.0.1/8", "eth0", "10.0.0.5/24"), "10.9.9.9", null),
                // a tunnel whose network is everything: the mask of /0 keeps no bit
                new Case(table("lo", "127.0.0.1/8", "wg0", "10.200.0.2/0"), "192.0.2.7", "wg0"));
    }

    /** True when {@code peer} is in the network {@code cidr} (address/prefix): the check's own, independent answer. */
    static boolean contains(String cidr, String peer) {
        String[] c = cidr.split("/");
        int bits = Integer.parseInt(c[1]);
        long mask = bits == 0 ? 0 : (0xFFFFFFFFL << (32 - bits)) & 0xFFFFFFFFL;
        return ((ipv4(c[0]) & 0xFFFFFFFFL) & mask) == ((ipv4(peer) & 0xFFFFFFFFL) & mask);
    }

    /** Checks {@code pick(interfaces, peer)} on a node like node0 and on three other machines; explains a wrong choice. */
    public static Check checkPickInterface(BiFunction<Map<String, String>, String, String> pick) {
        try {
            GradedFunctions.pickInterface(pick);   // a grader's run: the grading's own nodes, recorded
        } catch (RuntimeException e) {
            // no answer recorded: the grader says so; the check below explains the error
        }
        int n = 0;
        for (Case c : cases()) {
            n++;
            String got;
            try {
                got = pick.apply(new LinkedHashMap<>(c.interfaces()), c.peer());
            } catch (UnsupportedOperationException e) {
                return Check.wrong("pickInterface: not written yet", "Write it: return the interface whose network holds the peer.");
            } catch (RuntimeException e) {
                return Check.wrong("pickInterface threw " + e, "On interfaces " + c.interfaces() + " and peer " + c.peer()
                        + ". Split each value at '/' into address and prefix length; compare address AND mask with peer AND mask.");
            }
            String expected = c.expected();
            if (Objects.equals(got, expected)) continue;
            // the title says what was chosen, never which one is right: the hint points at the mistake
            String title = "case " + n + ": peer " + c.peer() + ", interfaces " + c.interfaces() + ": you chose " + got;
            if (expected == null) {
                return Check.wrong(title, "No interface shares a network with " + c.peer() + ": return null. NCCL would try"
                        + " anyway and fail (Network is unreachable); the fix is in the network, not in NCCL_SOCKET_IFNAME.");
            }
            if (got == null) {
                boolean zero = c.interfaces().get(expected).endsWith("/0");
                return Check.wrong(title, "one of these networks holds " + c.peer() + ". Compare the network parts: the first"
                        + " prefix-length bits of both addresses." + (zero ? " A /0 network holds every address: its mask"
                        + " keeps no bit, and in Java -1 << 32 is -1, not 0 (an int shift counts modulo 32)." : ""));
            }
            String cidr = c.interfaces().get(got);
            if (cidr == null) return Check.wrong(title, got + " is not one of this node's interfaces.");
            if (got.equals("lo")) {
                return Check.wrong(title, "lo (127.0.0.1) reaches only this node itself: the other rank would connect to its"
                        + " own loopback (Connection refused). Skip addresses whose network does not hold the peer.");
            }
            return Check.wrong(title, got + " has " + cidr + ", a network without " + c.peer() + ": the other node cannot reach it"
                    + " (Network is unreachable). " + (cidr.endsWith("/16") || c.interfaces().get(expected).endsWith("/16")
                    ? "Mind the prefix length: /16 keeps 16 bits, not 24." : "Take the interface whose network holds the peer,"
                    + " not the first one that is not lo."));
        }
        return Check.right("pickInterface chose the interface that reaches the peer in all " + n + " cases",
                "including a /16 network, a /0 one and a node with no way to the peer.");
    }
}
