package org.mpi2nccl.lessons;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.mpi2nccl.bench.BandwidthHarness;
import org.mpi2nccl.bench.BenchMemory;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchRow;
import org.mpi2nccl.bench.BenchSpec;
import org.mpi2nccl.bench.RankCommunicators;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.MpjCommunicator;
import org.mpi2nccl.comm.Reduction;

/**
 * Lesson 02, all-reduce from scratch: the sweep that times the naive all-reduce, the ring and MPJ's own Allreduce
 * ({@link #time}), and the exercise: the ring's reduce-scatter half written by the student, checked against the
 * toolkit's ({@link #checkReduceScatter}).
 */
public final class Lesson02 {
    /** Elements per segment in the exercise: each rank's buffer holds {@code size * SEGMENT} numbers. */
    public static final int SEGMENT = 3;
    /** Contributions are told apart by bit: rank q adds 2^q. Above this many ranks only the values are compared. */
    private static final int DECODABLE_RANKS = 10;
    private static final int STEP = 1024;

    private Lesson02() {
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
     * The exercise's buffer on rank {@code rank} of {@code size}: {@code size * SEGMENT} numbers, element j being
     * 2^rank + 1024 (j + 1). A sum over ranks then tells which ranks it holds (the bits) and how many times something
     * was added (the multiple of 1024), so the check can say what a wrong answer did.
     */
    public static float[] exerciseInput(int rank, int size) {
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " is not a rank of " + size);
        }
        float[] x = new float[size * SEGMENT];
        for (int j = 0; j < x.length; j++) {
            x[j] = (1 << Math.min(rank, 30)) + (float) STEP * (j + 1);
        }
        return x;
    }

    /**
     * Checks the student's reduce-scatter on this rank: {@code student} gets this rank's {@link #exerciseInput} and
     * must leave, in segment {@code rank} (elements rank*SEGMENT ..), the sum over all ranks of that segment. The
     * right values come from the toolkit's {@code reduceScatter} on {@code host} (run first, so that a student's
     * stray message cannot mix with it). Every rank calls it.
     */
    public static Check checkReduceScatter(Communicator host, Consumer<float[]> student) {
        int p = host.size();
        int r = host.rank();
        float[] mine = exerciseInput(r, p);
        float[] right = new float[SEGMENT];
        host.reduceScatter(HostBuffer.of(mine.clone()), HostBuffer.of(right), Reduction.SUM);
        float[] buf = mine.clone();
        String who = "rank " + r + ": ";
        try {
            student.accept(buf);
        } catch (ArrayIndexOutOfBoundsException e) {
            return Check.wrong(who + "an index outside the buffer (" + e.getMessage() + ")", "segment numbers must stay in"
                    + " 0.." + (p - 1) + ". Java's % keeps the sign: (rank - step - 1) % size is negative for small ranks;"
                    + " use Math.floorMod(rank - step - 1, size).");
        } catch (RuntimeException e) {
            return Check.wrong(who + "your code threw " + e, "fix the error above, then run the check again.");
        }
        return judge(r, p, mine, buf, right);
    }

    /** The verdict on {@code got} (the student's buffer after the call); {@code right} is segment r of the sum. */
    static Check judge(int r, int p, float[] mine, float[] got, float[] right) {
        String who = "rank " + r + ": ";
        float[] seg = segment(got, r);
        if (java.util.Arrays.equals(seg, right)) {
            if (p > 1 && allSegmentsComplete(got, p)) {
                return Check.wrong(who + "every segment holds the complete sum", "that is a whole all-reduce (or MPJ's"
                        + " Allreduce): right values, but the exercise is the reduce-scatter half, after which rank r holds"
                        + " only segment r complete, having sent (p-1)/p of the buffer instead of 2(p-1)/p.");
            }
            return Check.right(who + "segment " + r + " = " + fmt(seg), "the sum over all " + p + " ranks, as the toolkit's"
                    + " reduceScatter gives it, after " + (p - 1) + " steps around the ring.");
        }
        String why;
        if (java.util.Arrays.equals(got, mine)) {
            why = "your buffer is unchanged: at each step send one segment to the right neighbour, receive one from the"
                    + " left and ADD it to your own copy of that segment (buf[...] += received).";
        } else if (p <= DECODABLE_RANKS) {
            why = explainContents(r, p, got);
        } else {
            why = "expected " + fmt(right) + ".";
        }
        return Check.wrong(who + "segment " + r + " is " + fmt(seg) + ", not " + fmt(right), why);
    }

    private static String explainContents(int r, int p, float[] got) {
        int full = (1 << p) - 1;
        for (int j = 0; j < p; j++) {
            long[] mc = decode(got, j);
            if (j != r && mc != null && mc[0] == full && mc[1] == p) {
                return "the complete sum is in segment " + j + ", not " + r + ": your segment numbers are shifted by "
                        + Math.floorMod(j - r, p) + ". At step s (from 0) send segment (r - s - 1) mod p and receive"
                        + " segment (r - s - 2) mod p: after p - 1 steps segment r is the one completed.";
            }
        }
        long[] mc = decode(got, r);
        if (mc == null) {
            return "these numbers are no sum of the ranks' inputs (did you overwrite instead of add, or send a"
                    + " segment before it was complete?). Each step: receive into a separate array, then add it to"
                    + " buf's segment.";
        }
        long mask = mc[0];
        long adds = mc[1];
        List<Integer> have = new ArrayList<>();
        List<Integer> missing = new ArrayList<>();
        for (int q = 0; q < p; q++) {
            (((mask >> q) & 1) == 1 ? have : missing).add(q);
        }
        if (adds != Long.bitCount(mask)) {
            return "segment " + r + " counts " + adds + " contributions, but only ranks " + have + " are distinct:"
                    + " something was added twice. Add what arrives from the left to your own copy once per step, and"
                    + " send the segment you completed in the previous step.";
        }
        if (!missing.isEmpty()) {
            return "segment " + r + " holds the contributions of ranks " + have + " only; missing: " + missing + ". The"
                    + " loop needs p - 1 = " + (p - 1) + " steps, and from the second step on each rank passes on the"
                    + " partial sum it made in the step before (not its original data).";
        }
        return "the contributions look complete but differ from the expected values.";
    }

    /** {bitmask of ranks, number of contributions} of segment j, or null when the numbers are no such sum. */
    private static long[] decode(float[] got, int j) {
        int j0 = j * SEGMENT;
        double v0 = got[j0];
        double v1 = got[j0 + 1];
        double count = (v1 - v0) / STEP;
        if (count != Math.rint(count) || count < 1) {
            return null;
        }
        double mask = v0 - (double) STEP * (j0 + 1) * count;
        if (mask != Math.rint(mask) || mask < 1 || mask >= 1L << DECODABLE_RANKS) {
            return null;
        }
        for (int k = 2; k < SEGMENT; k++) {      // the rest of the segment must follow the same pattern
            if (got[j0 + k] != (float) (mask + (double) STEP * (j0 + k + 1) * count)) {
                return null;
            }
        }
        return new long[] {(long) mask, (long) count};
    }

    private static boolean allSegmentsComplete(float[] got, int p) {
        for (int j = 0; j < p; j++) {
            long[] mc = decode(got, j);
            if (mc == null || mc[0] != (1L << p) - 1 || mc[1] != p) {
                return false;
            }
        }
        return true;
    }

    private static float[] segment(float[] a, int j) {
        return java.util.Arrays.copyOfRange(a, j * SEGMENT, (j + 1) * SEGMENT);
    }

    private static String fmt(float[] a) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < a.length; i++) {
            s.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.0f", a[i]));
        }
        return s.append(']').toString();
    }
}
