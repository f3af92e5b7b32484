package org.mpi2nccl.lessons;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BiConsumer;
import org.mpi2nccl.bench.BandwidthHarness;
import org.mpi2nccl.bench.BenchMemory;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchRow;
import org.mpi2nccl.bench.BenchSpec;
import org.mpi2nccl.bench.RankCommunicators;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;

/**
 * Lesson 02, all-reduce from scratch. The student writes the ring all-reduce: a reduce-scatter, then an all-gather,
 * from Sendrecv ({@link PointToPoint}), on float[] buffers of any length. {@link #checkReduceScatter} and
 * {@link #checkAllReduce} run the student's function on every rank for several lengths and compare it with the
 * communicator's own all-reduce (MPI's Allreduce in the notebook) on the same random numbers ({@link Lesson02Check});
 * {@link Lesson02Diagnosis} explains a wrong answer.
 * After the exercise the lesson times the naive all-reduce, the toolkit's ring and MPJ's Allreduce ({@link #time})
 * and says what the numbers showed ({@link #timingSummary}).
 */
public final class Lesson02 {
    private Lesson02() {
    }

    /** Segment {@code j}'s first element when {@code n} elements are cut into {@code size} balanced segments. */
    public static int segmentStart(int n, int size, int j) {
        return j * (n / size) + Math.min(j, n % size);
    }

    /** Segment {@code j}'s length: {@code n / size}, one more for the first {@code n % size} segments. */
    public static int segmentLength(int n, int size, int j) {
        return n / size + (j < n % size ? 1 : 0);
    }

    /**
     * The buffer lengths the checks try on {@code size} ranks: 7, 1003, 1 and, from 3 ranks, size - 1 (fewer than the
     * ranks). A wrong answer is explained at the first length that shows it: the middle-sized ones come first.
     */
    public static int[] checkLengths(int size) {
        Set<Integer> n = new LinkedHashSet<>(List.of(7, 1000 + 3, 1));
        if (size > 2) {
            n.add(size - 1);
        }
        return n.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Rank {@code rank}'s random numbers for a buffer of {@code n}: whole numbers -99..99, so that sums are exact. */
    public static float[] randomInput(int rank, int n) {
        Random random = new Random(31L * n + rank);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextInt(199) - 99;
        }
        return x;
    }

    /** The length of the grading's buffer: 3 to 502 elements, from the grading's seed. */
    static int gradingLength(long seed) {
        return 3 + new Random(seed).nextInt(500);
    }

    /** Rank {@code rank}'s part of the grading's buffer: whole numbers -999..999 (exact sums), from the grading's number. */
    static float[] gradingInput(int rank, int n, long seed) {
        Random random = new Random(seed * 1_000_003L + rank);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextInt(1999) - 999;
        }
        return x;
    }

    /**
     * What rank {@code rank} must hold after the exercise on the grading's buffer (computed by the grader, outside
     * the student's run): the sum over the ranks, of segment {@code rank} only after the reduce-scatter.
     */
    public static double[] gradingAnswer(int rank, int size, long seed, boolean segmentOnly) {
        int n = gradingLength(seed);
        double[] sum = new double[n];
        for (int q = 0; q < size; q++) {
            float[] x = gradingInput(q, n, seed);
            for (int i = 0; i < n; i++) {
                sum[i] += x[i];
            }
        }
        int from = segmentOnly ? segmentStart(n, size, rank) : 0;
        int to = segmentOnly ? from + segmentLength(n, size, rank) : n;
        return java.util.Arrays.copyOfRange(sum, from, to);
    }

    /**
     * Checks the student's reduce-scatter on this rank: afterwards segment {@code rank} of the buffer must hold the
     * sum over all ranks of that segment (other segments may hold anything). Every rank calls it.
     */
    public static Check checkReduceScatter(Communicator world, BiConsumer<PointToPoint, float[]> student) {
        return Lesson02Check.check(world, student, true);
    }

    /** Checks the student's whole all-reduce on this rank: every element must hold the sum over all ranks. */
    public static Check checkAllReduce(Communicator world, BiConsumer<PointToPoint, float[]> student) {
        return Lesson02Check.check(world, student, false);
    }

    /** The lesson's sweep: 1 KiB .. 4 MiB by 4, out of place, few calls per size (a teaching machine has few cores). */
    public static BenchSpec sweep() {
        return BenchSpec.defaults().sizes(1 << 10, 4 << 20, 4).iterations(1, 5, 2, 0.3).placements(false, true);
    }

    /**
     * Runs {@code spec} for each named communicator ({@link RankCommunicators}: "mpj", "ring", "naive", ...) on this
     * rank. Every rank calls it with the same arguments; every rank gets the same rows.
     */
    public static BenchResults time(MpjCommunicator mpj, BenchSpec spec, String... names) {
        Map<String, RankCommunicators.Made> made = new LinkedHashMap<>();
        try {
            for (String n : names) {
                made.put(n, RankCommunicators.make(n, mpj, Duration.ofSeconds(60)));
            }
            Map<String, Communicator> comms = new LinkedHashMap<>();
            Map<String, BenchMemory> memory = new LinkedHashMap<>();
            made.forEach((n, m) -> {
                comms.put(n, m.communicator());
                memory.put(n, m.memory());
            });
            return time(mpj, spec, comms, memory);
        } finally {
            made.values().forEach(RankCommunicators.Made::close);
        }
    }

    /** {@link #time(MpjCommunicator, BenchSpec, String...)} for communicators made by the caller ({@code control}: barriers). */
    public static BenchResults time(Communicator control, BenchSpec spec, Map<String, Communicator> comms,
                                    Map<String, BenchMemory> memory) {
        List<BenchRow> rows = new ArrayList<>();
        comms.forEach((name, c) -> rows.addAll(new BandwidthHarness(c, control, name,
                memory.getOrDefault(name, BenchMemory.host())).run(spec, null)));
        return new BenchResults(rows);
    }

    /**
     * What the sweep showed, in sentences computed from its out-of-place rows: the ring against the naive
     * all-reduce at the smallest and the largest size, and why, given {@code cores} cores for the ranks.
     */
    public static String timingSummary(BenchResults timed, int cores) {
        List<BenchRow> naive = rows(timed, "naive");
        List<BenchRow> ring = rows(timed, "ring");
        if (naive.isEmpty() || ring.isEmpty() || naive.size() != ring.size()) {
            return "the sweep needs rows of both \"naive\" and \"ring\" to compare them.";
        }
        int p = ring.get(0).ranks();
        BenchRow nBig = naive.get(naive.size() - 1);
        BenchRow rBig = ring.get(ring.size() - 1);
        BenchRow nSmall = naive.get(0);
        BenchRow rSmall = ring.get(0);
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "At %s the ring took %.0f us, the naive"
                + " all-reduce %.0f us: ", size(rBig.bytes()), rBig.timeUs(), nBig.timeUs()));
        double big = nBig.timeUs() / rBig.timeUs();
        if (big >= 1.1) {
            s.append(String.format(Locale.ROOT, "the ring was %.2fx faster. With large buffers the bytes dominate:"
                    + " rank 0 of the naive all-reduce moves 2(p - 1) = %d whole buffers, a ring rank 2(p - 1)/p = %.1f.",
                    big, 2 * (p - 1), 2.0 * (p - 1) / p));
        } else {
            s.append(String.format(Locale.ROOT, "%s (%.2fx). ", big > 0.9 ? "about the same" : "the ring was slower", big));
            s.append(cores < p ? String.format(Locale.ROOT, "The %d ranks share %d core%s here, so they cannot all"
                    + " send at once, and the ring's gain (every link busy at every step) needs ranks that run at the"
                    + " same time.", p, cores, cores == 1 ? "" : "s")
                    : "Copies between threads of one machine are cheap, so the ring's extra steps cost about as much"
                    + " as the bytes it saves.");
            s.append(" With a link per rank, as between GPUs, the ring wins at large sizes.");
        }
        double small = nSmall.timeUs() / rSmall.timeUs();
        s.append(String.format(Locale.ROOT, " At %s: ring %.0f us, naive %.0f us (%s). ", size(rSmall.bytes()),
                rSmall.timeUs(), nSmall.timeUs(), small >= 1.1 ? String.format(Locale.ROOT, "ring %.2fx faster", small)
                        : small > 0.9 ? "about the same" : String.format(Locale.ROOT, "ring %.2fx slower", 1 / small)));
        s.append(String.format(Locale.ROOT, "Small buffers cost the time per message, not per byte, and the ring's"
                + " 2(p - 1) = %d steps follow one another: each waits for the one before.", 2 * (p - 1)));
        if (small >= 1.1) {
            s.append(" Here that did not show: other costs per call (ranks waiting for a core, the naive rank 0"
                    + " handling every message) were larger.");
        }
        return s.toString();
    }

    private static List<BenchRow> rows(BenchResults timed, String communicator) {
        List<BenchRow> out = new ArrayList<>();
        for (BenchRow row : timed.rows()) {
            if (row.communicator().equals(communicator) && row.placement().equals("out-of-place")) {
                out.add(row);
            }
        }
        out.sort(java.util.Comparator.comparingLong(BenchRow::bytes));
        return out;
    }

    private static String size(long bytes) {
        return bytes >= 1 << 20 ? bytes / (1 << 20) + " MiB" : bytes >= 1 << 10 ? bytes / (1 << 10) + " KiB" : bytes + " B";
    }

    static String range(int from, int to) {
        return to - from == 1 ? Integer.toString(from) : from + ".." + (to - 1);
    }

    static String fmt(float x) {
        return x == Math.rint(x) && Math.abs(x) < 1e9 ? Long.toString((long) x) : Float.toString(x);
    }
}
