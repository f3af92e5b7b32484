package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.DoubleBinaryOperator;
import org.mpi2nccl.bench.BusBandwidth;
import org.mpi2nccl.comm.Collective;

/**
 * Grading by data ({@link Grading}) for the exercises that are a function of a few numbers: lesson 04's bus
 * bandwidth, lesson 05's speedup model, lesson 08's choice of interface. In a graded run the check also calls the
 * student's function on cases drawn from the grading's seed and records what it returned; the grader draws the same
 * cases and computes the right answers itself ({@code answer}).
 */
public final class GradedFunctions {
    static final int CASES = 4;

    private GradedFunctions() {
    }

    private static Random random(long seed, String exercise) {
        return new Random(seed * 1_000_003L + exercise.hashCode());
    }

    // ---- lesson 04: the bus bandwidth of an all-reduce --------------------------------------------------------

    private record Transfer(long bytes, double seconds, int ranks) {
    }

    private static List<Transfer> transfers(long seed) {
        Random r = random(seed, "bus-bandwidth");
        List<Transfer> out = new ArrayList<>();
        for (int i = 0; i < CASES; i++) out.add(new Transfer(1024 + r.nextInt(1 << 30), 1e-5 + 0.05 * r.nextDouble(), 2 + r.nextInt(63)));
        return out;
    }

    /** In a graded run: the student's bus bandwidth on the grading's transfers, recorded. */
    static void busBandwidth(Lesson04.BusBandwidthFormula f) {
        if (Grading.seed() != 0) Grading.record("bus-bandwidth", busBandwidthOf(f, Grading.seed()));
    }

    static double[] busBandwidthOf(Lesson04.BusBandwidthFormula f, long seed) {
        return transfers(seed).stream().mapToDouble(t -> f.busbw(t.bytes(), t.seconds(), t.ranks())).toArray();
    }

    public static double[] busBandwidthAnswer(long seed) {
        return transfers(seed).stream().mapToDouble(t -> BusBandwidth.busbw(Collective.ALL_REDUCE, t.ranks(), t.bytes(), t.seconds()))
                .toArray();
    }

    // ---- lesson 05: the speedup of two ranks, from compute and all-reduce times ---------------------------------

    private static double[][] times(long seed) {
        Random r = random(seed, "speedup-model");
        double[][] out = new double[CASES][];
        for (int i = 0; i < CASES; i++) out[i] = new double[] {0.5 + 100 * r.nextDouble(), 60 * r.nextDouble()};
        return out;
    }

    /** In a graded run: the student's predicted speedups for the grading's (t_c, t_a), recorded. */
    static void speedupModel(DoubleBinaryOperator model) {
        if (Grading.seed() != 0) Grading.record("speedup-model", speedupModelOf(model, Grading.seed()));
    }

    static double[] speedupModelOf(DoubleBinaryOperator model, long seed) {
        double[][] t = times(seed);
        double[] got = new double[CASES];
        for (int i = 0; i < CASES; i++) got[i] = model.applyAsDouble(t[i][0], t[i][1]);
        return got;
    }

    public static double[] speedupModelAnswer(long seed) {
        return speedupModelOf(Lesson05::reference, seed);
    }

    // ---- lesson 08: the interface whose network holds the peer --------------------------------------------------

    private record Node(Map<String, String> interfaces, String peer) {
    }

    /** Nodes of 2 to 4 interfaces on networks that never overlap (each its own first byte); the peer in one or none. */
    private static List<Node> nodes(long seed) {
        Random r = random(seed, "pick-interface");
        List<Node> out = new ArrayList<>();
        String[] names = {"eth0", "eth1", "ens5", "ib0", "docker0", "bond0"};
        for (int i = 0; i < CASES; i++) {
            Map<String, String> ifs = new LinkedHashMap<>();
            ifs.put("lo", "127.0.0.1/8");
            int n = 2 + r.nextInt(3);
            List<int[]> nets = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                int prefix = 8 + r.nextInt(23);
                int address = (10 + 20 * k + r.nextInt(20)) << 24 | r.nextInt(1 << 24);
                ifs.put(names[k], dotted(address) + "/" + prefix);
                nets.add(new int[] {address, prefix});
            }
            int target = r.nextInt(n + 1);   // n: no interface holds it
            int peer;
            if (target < n) {
                int mask = -1 << (32 - nets.get(target)[1]);
                peer = nets.get(target)[0] & mask | r.nextInt() & ~mask;
            } else {
                peer = 200 << 24 | r.nextInt(1 << 24);
            }
            out.add(new Node(ifs, dotted(peer)));
        }
        return out;
    }

    /** In a graded run: the student's choice on the grading's nodes, recorded as the interface's place (-1: none). */
    static void pickInterface(BiFunction<Map<String, String>, String, String> pick) {
        if (Grading.seed() != 0) Grading.record("pick-interface", pickInterfaceOf(pick, Grading.seed()));
    }

    static double[] pickInterfaceOf(BiFunction<Map<String, String>, String, String> pick, long seed) {
        List<Node> nodes = nodes(seed);
        double[] got = new double[CASES];
        for (int i = 0; i < CASES; i++) {
            Node node = nodes.get(i);
            got[i] = place(node, pick.apply(new LinkedHashMap<>(node.interfaces()), node.peer()));
        }
        return got;
    }

    public static double[] pickInterfaceAnswer(long seed) {
        List<Node> nodes = nodes(seed);
        double[] want = new double[CASES];
        for (int i = 0; i < CASES; i++) {
            Node node = nodes.get(i);
            String right = null;
            for (var e : node.interfaces().entrySet()) if (Lesson08.contains(e.getValue(), node.peer())) right = e.getKey();
            want[i] = place(node, right);
        }
        return want;
    }

    private static String dotted(int address) {
        return (address >>> 24) + "." + (address >>> 16 & 255) + "." + (address >>> 8 & 255) + "." + (address & 255);
    }

    /** The place of {@code name} among the node's interfaces, -1 for none, -2 for a name the node does not have. */
    private static int place(Node node, String name) {
        if (name == null) return -1;
        int i = 0;
        for (String n : node.interfaces().keySet()) {
            if (n.equals(name)) return i;
            i++;
        }
        return -2;
    }
}
