package org.mpi2nccl.lessons;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchSpec;
import org.mpi2nccl.bench.BusBandwidth;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.MpjCommunicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.nccl.DeviceArray;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.comm.nccl.NcclNatives;
import org.mpi2nccl.comm.nccl.NcclOptions;

/**
 * Lesson 04, NCCL: the communicator's bootstrap one step at a time (unique id on rank 0, its bytes broadcast over MPJ,
 * ncclCommInitRank on every rank), a first all-reduce on the GPUs, the bandwidth sweep of NCCL against the MPI route
 * (live with GPUs; otherwise the results recorded on the GPU machine, said so), and the exercise: nccl-tests' bus
 * bandwidth.
 *
 * <p>Without a GPU every NCCL step says so instead of pretending: the unique id is a labelled stand-in (the MPJ
 * broadcast of its bytes still runs for real) and ncclCommInitRank is skipped.
 */
public final class Lesson04 {
    /** The bandwidth recorded on 2x H200 (nccl/, mpi/, torch_allreduce.csv, nccl-init.txt; its README says how). */
    public static final String RECORDED = "results/bandwidth-2gpu";

    private Lesson04() {
    }

    /** The exercise: a function of the size of the result, the time per call and the number of ranks. */
    @FunctionalInterface
    public interface BusBandwidthFormula {
        double busbw(long bytes, double seconds, int ranks);
    }

    /** True when NCCL can run here (a GPU and the NCCL library). */
    public static boolean hasGpu() {
        return NcclNatives.gpuCount() > 0;
    }

    /** One line on what this machine can do in this lesson. */
    public static String gpuStatus() {
        int n = NcclNatives.gpuCount();
        if (n > 0) {
            return n + " GPU(s), NCCL " + NcclNatives.version() + ": the NCCL cells run for real.";
        }
        return "no GPU: " + NcclNatives.whyNoGpu() + ". The NCCL cells below say so, and the bandwidth chart shows"
                + " results RECORDED on a machine with two H200 GPUs.";
    }

    /**
     * Step 1 on every rank: rank 0 makes the unique id ({@code ncclGetUniqueId}); the others make room for its 128
     * bytes. Without a GPU rank 0 makes a random stand-in of the same size, and says so.
     */
    public static byte[] uniqueId(int rank) {
        if (rank != 0) {
            return new byte[128];
        }
        if (hasGpu()) {
            return NcclCommunicator.uniqueId();
        }
        System.out.println("no GPU: ncclGetUniqueId skipped; a random STAND-IN of 128 bytes is broadcast instead, so that"
                + " the next step still shows the broadcast.");
        byte[] standIn = new byte[128];
        new SecureRandom().nextBytes(standIn);
        return standIn;
    }

    /** The first {@code n} bytes in hex, to compare the id across ranks. */
    public static String hex(byte[] id, int n) {
        return HexFormat.of().formatHex(id, 0, Math.min(n, id.length)) + (id.length > n ? "..." : "");
    }

    /**
     * Step 3 on every rank: {@code ncclCommInitRank} with the id every rank now holds (each rank on GPU rank mod
     * GPUs). Without a GPU: skipped, and the init times recorded on the GPU machine are printed; returns null.
     */
    public static NcclCommunicator initRank(byte[] id, int rank, int size) throws IOException {
        if (!hasGpu()) {
            if (rank == 0) {
                System.out.println("no GPU: ncclCommInitRank skipped. RECORDED on 2x H200 (" + RECORDED + "):");
                recordedInitLines().forEach(l -> System.out.println("  " + l));
            }
            return null;
        }
        NcclCommunicator c = NcclCommunicator.initRank(id, rank, size, NcclOptions.defaults().timeout(Duration.ofSeconds(60)));
        System.out.printf(Locale.ROOT, "ncclCommInitRank: rank %d of %d on cuda:%d in %.1f ms%n", rank, size, c.device(),
                c.initNanos() / 1e6);
        return c;
    }

    /** The "NCCL INIT rank" lines of the recorded GPU test log (empty when the log is not in the repository). */
    static List<String> recordedInitLines() throws IOException {
        Path log = find(RECORDED + "/nccl-init.txt");
        List<String> out = new ArrayList<>();
        if (log == null) {
            out.add("(the log " + RECORDED + "/nccl-init.txt is not in this checkout)");
            return out;
        }
        for (String l : Files.readAllLines(log)) {
            int i = l.indexOf("NCCL INIT rank");
            if (i >= 0 && out.size() < 4) {
                out.add(l.substring(i));
            }
        }
        return out;
    }

    /** A first all-reduce on the GPUs: every rank contributes rank + 1, every rank gets the sum. */
    public static String allReduceDemo(NcclCommunicator nccl) {
        float[] mine = new float[4];
        java.util.Arrays.fill(mine, nccl.rank() + 1);
        try (DeviceArray x = DeviceArray.of(nccl.device(), HostBuffer.of(mine))) {
            nccl.allReduce(x.buffer(), Reduction.SUM);
            nccl.synchronize();
            HostBuffer h = x.toHost();
            return String.format(Locale.ROOT, "rank %d on cuda:%d: %.0f (expected %d)", nccl.rank(), nccl.device(),
                    h.getDouble(0), nccl.size() * (nccl.size() + 1) / 2);
        }
    }

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
     * The sweep recorded on the GPU machine, from {@value #RECORDED}: NCCL and torch.distributed in the same run,
     * the MPI route at three sizes. Prints where they come from; null when none is in this checkout.
     */
    public static BenchResults recorded() throws IOException {
        Path nccl = find(RECORDED + "/nccl/bandwidth.csv");
        if (nccl == null) {
            System.out.println("No recorded GPU results in this checkout (" + RECORDED + "/): they come from running"
                    + " scripts/gpu/bandwidth.sh on a GPU machine.");
            return null;
        }
        List<BenchResults> parts = new ArrayList<>();
        parts.add(BenchResults.readCsv(nccl));
        for (String f : new String[] {"/mpi/bandwidth.csv", "/torch_allreduce.csv"}) {
            Path p = find(RECORDED + f);
            if (p != null) {
                parts.add(BenchResults.readCsv(p));
            }
        }
        System.out.println("RECORDED results (not this machine): 2x H200 (NVLink), " + RECORDED + "/: NCCL and"
                + " torch.distributed in the same run (blocking NCCL, 200 timed calls per size); the host-staged MPI"
                + " route at 1, 16 and 64 MiB.");
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

    /** {@code rel} looked for from the working folder upwards (a notebook runs in notebooks/); null if absent. */
    static Path find(String rel) {
        Path dir = Path.of("").toAbsolutePath();
        for (int up = 0; dir != null && up < 4; up++, dir = dir.getParent()) {
            Path f = dir.resolve(rel);
            if (Files.isReadable(f)) {
                return f;
            }
        }
        return null;
    }

    /** Checks the student's bus bandwidth formula against nccl-tests' on 2, 3 and 8 ranks, and explains a wrong one. */
    public static Check checkBusBandwidth(BusBandwidthFormula f) {
        long bytes = 1L << 30;
        double seconds = 3.3e-3;
        int[] ranks = {2, 3, 8};
        StringBuilder got = new StringBuilder();
        boolean all = true;
        double[] answers = new double[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            double want = BusBandwidth.busbw(Collective.ALL_REDUCE, ranks[i], bytes, seconds);
            answers[i] = f.busbw(bytes, seconds, ranks[i]);
            all &= close(answers[i], want);
            got.append(String.format(Locale.ROOT, "%s%d ranks: %.1f (nccl-tests: %.1f)", i == 0 ? "" : "; ", ranks[i],
                    answers[i], want));
        }
        if (all) {
            return Check.right("busbw of a 1 GiB all-reduce in 3.3 ms: " + got, "algbw = bytes / seconds / 1e9 and"
                    + " busbw = algbw * 2(n-1)/n: on 2 ranks they are equal, on 8 ranks each link carries 1.75x the result.");
        }
        int n = ranks[2];
        double alg = BusBandwidth.algbw(bytes, seconds);
        double a = answers[2];
        String why;
        if (Double.isNaN(a) || a == 0) {
            why = "no answer yet: return the bus bandwidth in GB/s.";
        } else if (close(a, alg)) {
            why = "that is the algorithm bandwidth (bytes / time). Multiply by 2(n-1)/n: an all-reduce is a reduce-scatter"
                    + " and an all-gather, each moving (n-1)/n of the data over every link.";
        } else if (close(a, alg * 2)) {
            why = "the factor is 2(n-1)/n, not 2: each rank keeps 1/n of the data it does not have to send.";
        } else if (close(a, alg * (n - 1) / n)) {
            why = "(n-1)/n is the factor of one half (reduce-scatter or all-gather); the all-reduce does both: 2(n-1)/n.";
        } else if (close(a, alg * 1e9 / (1L << 30) * 2 * (n - 1) / n)) {
            why = "GB/s here means 10^9 bytes per second (as nccl-tests prints), not 2^30.";
        } else if (close(a, alg * 1e3 * 2 * (n - 1) / n) || close(a, alg * 1e-3 * 2 * (n - 1) / n)) {
            why = "the time is in seconds and the answer in GB/s (10^9 bytes per second): check the powers of ten.";
        } else {
            why = "expected bytes / seconds / 1e9 * 2(n-1)/n.";
        }
        return Check.wrong("busbw: " + got, why);
    }

    private static boolean close(double a, double b) {
        return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
    }
}
