package org.mpi2nccl.lessons;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import mpi.MPI;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchSpec;
import org.mpi2nccl.bench.BusBandwidth;
import org.mpi2nccl.comm.Clique;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.ring.CpuClique;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.nccl.DeviceArray;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.comm.nccl.NcclNatives;
import org.mpi2nccl.comm.nccl.NcclOptions;

/**
 * Lesson 04, NCCL: the student writes the communicator's bootstrap (rank 0 makes the unique id, its bytes are
 * broadcast over MPJ, every rank calls initRank(size, id, rank)) against a {@link Clique}: NCCL where there are GPUs,
 * the {@link CpuClique} of the same shape where there are none, so the exercise runs everywhere. The check
 * ({@link #checkBootstrap}, reasons in {@link Lesson04Bootstrap}) explains a wrong bootstrap. Then a first
 * all-reduce, NCCL's bandwidth against the MPI route (live with GPUs, else recorded on the GPU machine, said so),
 * and a second exercise: nccl-tests' bus bandwidth.
 */
public final class Lesson04 {
    /**
     * The bandwidth recorded on 2x H200 (nccl/, mpi/, torch_allreduce.csv, nccl-init.txt; its README says how), read
     * from this checkout or from the toolkit's copy ({@link Recorded}): the lesson finds it from any folder.
     */
    public static final String RECORDED = Recorded.BANDWIDTH.folder();
    /** How long a rank waits for the others in the CPU clique's init: a wrong bootstrap fails after this. */
    public static final Duration CPU_TIMEOUT = Duration.ofSeconds(5);
    /**
     * The same for NCCL's init, whose first call on a GPU also loads NCCL's kernels, so it is given far more time
     * (results/bandwidth-2gpu/nccl-init.txt has the inits' times).
     */
    public static final Duration NCCL_TIMEOUT = Duration.ofSeconds(30);

    private Lesson04() {
    }

    /** The exercise: a function of the size of the result, the time per call and the number of ranks. */
    @FunctionalInterface
    public interface BusBandwidthFormula {
        double busbw(long bytes, double seconds, int ranks);
    }

    /** The bootstrap exercise: the three steps on every rank, returning this rank's communicator. */
    @FunctionalInterface
    public interface Bootstrap {
        Communicator bootstrap(Clique clique);
    }

    /** True when NCCL can run here (a GPU and the NCCL library). */
    public static boolean hasGpu() {
        return NcclNatives.gpuCount() > 0;
    }

    /** One line on what this machine can do in this lesson. */
    public static String gpuStatus() {
        int n = NcclNatives.gpuCount();
        if (n > 0) {
            return n + " GPU(s), NCCL " + NcclNatives.version() + ": the bootstrap and the all-reduce run on NCCL.";
        }
        return "no GPU: " + NcclNatives.whyNoGpu() + ". The bootstrap and the all-reduce run on the CPU clique (the same"
                + " three steps, over shared memory); the bandwidth chart shows results RECORDED on two H200 GPUs.";
    }

    /** The clique this machine offers: NCCL with GPUs, otherwise the CPU clique. */
    public static Clique clique() {
        return hasGpu() ? new Nccl(NCCL_TIMEOUT) : CpuClique.withTimeout(CPU_TIMEOUT);
    }

    /** NCCL as a {@link Clique}: ncclGetUniqueId and ncclCommInitRank, each rank on GPU rank mod GPUs. */
    private record Nccl(Duration timeout) implements Clique {
        @Override
        public byte[] uniqueId() {
            return NcclCommunicator.uniqueId();
        }

        @Override
        public Communicator initRank(int size, byte[] id, int rank) {
            return NcclCommunicator.initRank(id, rank, size, NcclOptions.defaults().timeout(timeout));
        }

        @Override
        public String describe() {
            return "NCCL " + NcclNatives.version() + " on " + NcclNatives.gpuCount() + " GPU(s): ncclGetUniqueId,"
                    + " ncclCommInitRank (timeout " + timeout.toSeconds() + " s)";
        }
    }

    /** The first {@code n} bytes in hex, to compare the id across ranks. */
    public static String hex(byte[] id, int n) {
        return HexFormat.of().formatHex(id, 0, Math.min(n, id.length)) + (id.length > n ? "..." : "");
    }

    // ---- the bootstrap exercise ---------------------------------------------------------------------------------

    /**
     * The check, in a %%mpj cell: runs the student's bootstrap on every rank, compares what each rank did (who made
     * an id, which id and arguments reached initRank), then all-reduces on the communicator it returned.
     */
    public static Check checkBootstrap(int rank, int size, Clique clique, Bootstrap bootstrap) {
        MpjCommunicator world = MpjCommunicator.builder().timeout(Duration.ofSeconds(120)).build();
        try {
            return checkBootstrap(world, clique, bootstrap);
        } finally {
            world.close();
        }
    }

    /** As above, the ranks' reports exchanged over {@code world} (MPJ in the notebook, thread ranks in the tests). */
    public static Check checkBootstrap(Communicator world, Clique clique, Bootstrap bootstrap) {
        return Lesson04Bootstrap.check(world, clique, bootstrap);
    }

    /**
     * The communicator for the cells after the exercise: the student's bootstrap, or, until it works, the toolkit's
     * (the same three steps), with a line saying which.
     */
    public static Communicator communicator(int rank, int size, Clique clique, Bootstrap yours) {
        try {
            Communicator c = yours.bootstrap(clique);
            if (c != null) {
                return c;
            }
            System.out.println("rank " + rank + ": your bootstrap returned null: this cell uses the toolkit's");
        } catch (RuntimeException e) {
            System.out.println("rank " + rank + ": your bootstrap is not working yet (" + Lesson04Bootstrap.firstLine(e)
                    + "): this cell uses the toolkit's");
        }
        byte[] id = rank == 0 ? clique.uniqueId() : new byte[Clique.ID_BYTES];
        MPI.COMM_WORLD.Bcast(id, 0, id.length, MPI.BYTE, 0);
        return clique.initRank(size, id, rank);
    }

    /** A buffer where {@code comm} reads it: GPU memory for NCCL, the array itself otherwise. Close it after. */
    public static Placed place(Communicator comm, float[] data) {
        if (comm instanceof NcclCommunicator nccl) {
            DeviceArray a = DeviceArray.of(nccl.device(), HostBuffer.of(data));
            return new Placed(a.buffer(), () -> (float[]) a.toHost().array(), a::close);
        }
        HostBuffer h = HostBuffer.of(data);
        return new Placed(h, () -> data, () -> { });
    }

    /** A buffer placed for a communicator: {@link #buffer()} to pass to it, {@link #read()} to see the values. */
    public record Placed(CommBuffer buffer, java.util.function.Supplier<float[]> reader, Runnable free)
            implements AutoCloseable {
        public float[] read() {
            return reader.get();
        }

        @Override
        public void close() {
            free.run();
        }
    }

    /** The "NCCL INIT rank" lines of the recorded GPU test log, then where they were recorded (a note if absent). */
    public static List<String> recordedInit() throws IOException {
        Path log = Recorded.BANDWIDTH.file("nccl-init.txt");
        List<String> out = new ArrayList<>();
        if (log == null) {
            out.add(Recorded.BANDWIDTH.missing("nccl-init.txt"));
            return out;
        }
        for (String l : Files.readAllLines(log)) {
            int i = l.indexOf("NCCL INIT rank");
            if (i >= 0 && out.size() < 4) {
                // a file rendezvous names the test's own temporary file: where it was is no part of the lesson
                out.add(l.substring(i).replaceAll("via file://\\S+?:", "via a shared file:"));
            }
        }
        out.add("(" + Recorded.BANDWIDTH.source("nccl-init.txt") + ")");
        return out;
    }

    // ---- NCCL against the MPI route -------------------------------------------------------------------------------

    /** The live sweep on GPUs: NCCL (as nccl-tests runs it) and the MPI route (D2H, MPJ Allreduce, H2D), 1 KiB .. 64 MiB. */
    public static BenchResults liveSweep(MpjCommunicator mpj) {
        if (!hasGpu()) {
            throw new IllegalStateException("the live sweep needs GPUs: " + NcclNatives.whyNoGpu()
                    + "; show Lesson04.recorded() instead");
        }
        BenchSpec spec = BenchSpec.defaults().sizes(1 << 10, 64 << 20, 4).iterations(2, 10, 2, 0.5).placements(true, false);
        return Lesson02.time(mpj, spec, "nccl", "mpj-staged");
    }

    /**
     * The sweep recorded on the GPU machine ({@link #RECORDED}): NCCL and torch.distributed in the same run, the MPI
     * route at three sizes. Prints where they come from; null when neither this checkout nor the toolkit has them.
     */
    public static BenchResults recorded() throws IOException {
        Path nccl = Recorded.BANDWIDTH.file("nccl/bandwidth.csv");
        if (nccl == null) {
            System.out.println(Recorded.BANDWIDTH.missing("nccl/bandwidth.csv"));
            return null;
        }
        List<BenchResults> parts = new ArrayList<>();
        parts.add(BenchResults.readCsv(nccl));
        for (String f : new String[] {"mpi/bandwidth.csv", "torch_allreduce.csv"}) {
            Path p = Recorded.BANDWIDTH.file(f);
            if (p != null) {
                parts.add(BenchResults.readCsv(p));
            }
        }
        System.out.println(Recorded.BANDWIDTH.source("nccl/bandwidth.csv") + ". NCCL and torch.distributed in the same"
                + " run (blocking NCCL, 200 timed calls per size); the host-staged MPI routes (MPJ's Allreduce, mpj-staged, and"
                + " the ring over MPJ, ring-staged) up to 256 MiB.");
        return BenchResults.concat(parts);
    }

    /**
     * busbw (GB/s) of every communicator side by side, one line per size from {@code fromBytes} on ({@code placement}
     * "in-place" or "out-of-place"; "-" where a communicator has no row).
     */
    public static String busbwTable(BenchResults results, String placement, long fromBytes) {
        java.util.TreeMap<Long, java.util.Map<String, Double>> bySize = new java.util.TreeMap<>();
        java.util.LinkedHashSet<String> comms = new java.util.LinkedHashSet<>();
        for (org.mpi2nccl.bench.BenchRow r : results.rows()) {
            if (r.placement().equals(placement) && r.bytes() >= fromBytes) {
                comms.add(r.communicator());
                bySize.computeIfAbsent(r.bytes(), k -> new java.util.HashMap<>()).put(r.communicator(), r.busbw());
            }
        }
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "busbw GB/s, %s%n%10s", placement, "size"));
        for (String c : comms) {
            s.append(String.format(Locale.ROOT, " %24s", c.length() > 24 ? c.substring(0, 24) : c));
        }
        s.append('\n');
        bySize.forEach((bytes, row) -> {
            s.append(String.format(Locale.ROOT, "%10s", BenchSpec.formatBytes(bytes)));
            for (String c : comms) {
                Double v = row.get(c);
                s.append(v == null ? String.format(Locale.ROOT, " %24s", "-") : String.format(Locale.ROOT, " %24.2f", v));
            }
            s.append('\n');
        });
        return s.toString();
    }

    /** Checks the student's bus bandwidth formula against nccl-tests' on 2, 3 and 8 ranks, and explains a wrong one. */
    public static Check checkBusBandwidth(BusBandwidthFormula f) {
        try {
            GradedFunctions.busBandwidth(f);   // a grader's run: the grading's own cases, recorded
        } catch (RuntimeException e) {
            // no answer recorded: the grader says so; the check below explains the error
        }
        long bytes = 1L << 30;
        double seconds = 3.3e-3;
        // 1 rank (nothing to send), 2 (factor 1), 3 and 4 (factors that no int division gives) and 8
        int[] ranks = {1, 2, 3, 4, 8};
        StringBuilder got = new StringBuilder();
        int first = -1;
        double[] answers = new double[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            double want = BusBandwidth.busbw(Collective.ALL_REDUCE, ranks[i], bytes, seconds);
            answers[i] = f.busbw(bytes, seconds, ranks[i]);
            if (first < 0 && !close(answers[i], want)) first = i;
            got.append(String.format(Locale.ROOT, "%s%d rank%s: %.1f (nccl-tests: %.1f)", i == 0 ? "" : "; ", ranks[i],
                    ranks[i] == 1 ? "" : "s", answers[i], want));
        }
        if (first < 0) {
            return Check.right("busbw of a 1 GiB all-reduce in 3.3 ms: " + got, "algbw = bytes / seconds / 1e9 and"
                    + " busbw = algbw * 2(n-1)/n: on 1 rank nothing moves, on 2 ranks they are equal, on 8 ranks each"
                    + " link carries 1.75x the result.");
        }
        int n = ranks[first];
        double alg = BusBandwidth.algbw(bytes, seconds);
        double a = answers[first];
        // the title names the first rank count that is wrong and what came out there, never the right number
        String title = String.format(Locale.ROOT, "busbw on %d rank%s: %.1f GB/s is not the bus bandwidth", n,
                n == 1 ? "" : "s", a) + (first == 0 ? "" : " (right on " + ranksBefore(ranks, first) + ")");
        String why;
        boolean allZero = java.util.Arrays.stream(answers).allMatch(x -> x == 0);
        if (Double.isNaN(a)) {
            why = "no answer yet: return the bus bandwidth in GB/s.";
        } else if (allZero) {
            why = "0 on every rank count: no answer yet (the starter returns 0), or a factor computed in integer"
                    + " arithmetic ((n - 1) / n is 0 when n is an int: write 2.0 * (n - 1) / n).";
        } else if (integerFactor(answers, ranks, alg)) {
            why = "the factor was computed in integer arithmetic: Java divides ints without a fraction, so with int n"
                    + " 2 * (n - 1) / n is 1 on 3 and 4 ranks and (n - 1) / n is 0. Make the division a double one,"
                    + " e.g. 2.0 * (n - 1) / n, or multiply algbw first: algbw * 2 * (n - 1) / n.";
        } else if (a == 0) {
            why = "0 on " + n + " ranks: a factor was computed in integer arithmetic ((n - 1) / n is 0 for ints): write"
                    + " the factor with a double, e.g. 2.0 * (n - 1) / n.";
        } else if (close(a, alg)) {
            why = "that is the algorithm bandwidth (bytes / time): the factor 2(n-1)/n is missing. An all-reduce is a"
                    + " reduce-scatter and an all-gather, each moving (n-1)/n of the data over every link.";
        } else if (close(a, alg * 2)) {
            why = "the factor is 2(n-1)/n, not 2: each rank keeps 1/n of the data it does not have to send.";
        } else if (close(a, alg * (n - 1) / n)) {
            why = "(n-1)/n is the factor of one half (reduce-scatter or all-gather); the all-reduce does both: 2(n-1)/n.";
        } else if (close(a, alg * 1e9 / (1L << 30) * 2 * (n - 1) / n)) {
            why = "GB/s here means 10^9 bytes per second (as nccl-tests prints), not 2^30.";
        } else if (close(a, alg * 1e3 * 2 * (n - 1) / n) || close(a, alg * 1e-3 * 2 * (n - 1) / n)) {
            why = "the time is in seconds and the answer in GB/s (10^9 bytes per second): check the powers of ten.";
        } else {
            why = "nccl-tests' bus bandwidth of an all-reduce is bytes / seconds / 1e9 * 2(n-1)/n.";
        }
        return Check.wrong(title, why);
    }

    /** "1 and 2 ranks": the rank counts before {@code first}. */
    private static String ranksBefore(int[] ranks, int first) {
        java.util.List<String> s = new java.util.ArrayList<>();
        for (int i = 0; i < first; i++) s.add(Integer.toString(ranks[i]));
        return (s.size() == 1 ? s.get(0) : String.join(", ", s.subList(0, s.size() - 1)) + " and " + s.get(s.size() - 1))
                + (first == 1 && ranks[0] == 1 ? " rank" : " ranks");
    }

    /** True when every answer is algbw times the factor as Java's int arithmetic computes it, in one of two orders. */
    private static boolean integerFactor(double[] answers, int[] ranks, double alg) {
        boolean whole = true, half = true;
        for (int i = 0; i < ranks.length; i++) {
            int n = ranks[i];
            whole &= close(answers[i], alg * (2 * (n - 1) / n));
            half &= close(answers[i], alg * 2 * ((n - 1) / n));
        }
        return whole || half;
    }

    private static boolean close(double a, double b) {
        return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
    }
}
