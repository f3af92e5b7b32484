package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchRow;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ring.RingCommunicator;
import org.mpi2nccl.comm.ThreadRanks;

/**
 * Lesson 02: the ring all-reduce exercise's two checks, on thread ranks. The notebook's answer is written here over a
 * Communicator's send and recv, once right and with the usual mistakes ({@link Bug}); each mistake must be explained
 * on the rank that shows it. Also the sweep helper and the sentences computed from its numbers.
 */
class Lesson02Test {
    /** A mistake put into the ring. */
    enum Bug { NONE, RS_NOTHING, RS_SKIPS_LAST_STEP, RS_PASSES_ORIGINAL, RS_WRONG_NEIGHBOUR, RS_SHIFTED, RS_ADDS_OWN_AGAIN,
        RS_WHOLE_ALLREDUCE, RS_STUB, RS_JAVA_MOD, RS_SENDS_LEFT, RS_CELL_SIZE, AG_NOTHING, AG_SENDS_WRONG_SEGMENT, AG_ADDS, AG_SKIPS_LAST_STEP }

    /** The Sendrecv timeout of these runs: short, so that a test of a hang takes seconds. */
    private static final Duration WAIT = Duration.ofSeconds(2);

    private static void assumeNotStrict() {
        assumeFalse("1".equals(System.getenv(Check.STRICT_ENV)), Check.STRICT_ENV + "=1: wrong answers throw");
    }

    private static int start(PointToPoint c, int n, int j) {
        return Lesson02.segmentStart(n, c.size(), j);
    }

    private static int length(PointToPoint c, int n, int j) {
        return Lesson02.segmentLength(n, c.size(), j);
    }

    /** The notebook's reduce-scatter, with {@code bug} put in. */
    static void reduceScatter(PointToPoint c, float[] buf, Bug bug) {
        int p = bug == Bug.RS_CELL_SIZE ? 4 : c.size(), r = c.rank(), n = buf.length;
        int right = (r + 1) % p, left = (r + p - 1) % p;
        switch (bug) {
            case RS_NOTHING:
                return;
            case RS_STUB:
                throw new UnsupportedOperationException("write the reduce-scatter");
            case RS_WHOLE_ALLREDUCE:
                wholeAllReduce(c, buf);
                return;
            case RS_WRONG_NEIGHBOUR:
                right = left;
                left = (r + 1) % p;
                break;
            case RS_SENDS_LEFT:
                right = left;
                break;
            default:
        }
        float[] original = buf.clone();
        float[] in = new float[n / p + 1];
        int steps = bug == Bug.RS_SKIPS_LAST_STEP ? p - 2 : p - 1;
        int shift = bug == Bug.RS_SHIFTED ? 1 : 0;
        for (int step = 0; step < steps; step++) {
            int send = Math.floorMod(r - step - 1 + shift, p), recv = Math.floorMod(r - step - 2 + shift, p);
            if (bug == Bug.RS_JAVA_MOD) {
                send = (r - step - 1) % p;
                recv = (r - step - 2) % p;
            }
            float[] from = bug == Bug.RS_PASSES_ORIGINAL ? original : buf;
            c.sendrecv(from, start(c, n, send), length(c, n, send), right, in, 0, length(c, n, recv), left);
            for (int i = 0; i < length(c, n, recv); i++) {
                buf[start(c, n, recv) + i] += in[i] + (bug == Bug.RS_ADDS_OWN_AGAIN ? original[start(c, n, recv) + i] : 0);
            }
        }
    }

    /** The notebook's all-gather, with {@code bug} put in. */
    static void allGather(PointToPoint c, float[] buf, Bug bug) {
        int p = c.size(), r = c.rank(), n = buf.length;
        if (bug == Bug.AG_NOTHING) {
            return;
        }
        float[] in = new float[n / p + 1];
        int steps = bug == Bug.AG_SKIPS_LAST_STEP ? p - 2 : p - 1;
        for (int step = 0; step < steps; step++) {
            int send = Math.floorMod(r - step - (bug == Bug.AG_SENDS_WRONG_SEGMENT ? 1 : 0), p);
            int recv = Math.floorMod(r - step - 1, p);
            c.sendrecv(buf, start(c, n, send), length(c, n, send), (r + 1) % p, in, 0, length(c, n, recv), (r + p - 1) % p);
            for (int i = 0; i < length(c, n, recv); i++) {
                buf[start(c, n, recv) + i] = in[i] + (bug == Bug.AG_ADDS ? buf[start(c, n, recv) + i] : 0);
            }
        }
    }

    /** A whole all-reduce from Sendrecv: every rank's buffer passed once around the ring and added. */
    private static void wholeAllReduce(PointToPoint c, float[] buf) {
        float[] passing = buf.clone(), in = new float[buf.length];
        for (int step = 0; step < c.size() - 1; step++) {
            c.sendrecv(passing, 0, buf.length, (c.rank() + 1) % c.size(), in, 0, buf.length, (c.rank() + c.size() - 1) % c.size());
            System.arraycopy(in, 0, passing, 0, buf.length);
            for (int i = 0; i < buf.length; i++) buf[i] += in[i];
        }
    }

    /** Runs a check on {@code size} thread ranks; one Check per rank. */
    private static List<Check> run(int size, boolean whole, Bug bug) {
        return ThreadRanks.run(size, b -> b.timeout(Duration.ofSeconds(20)), Duration.ofSeconds(60), c -> whole
                ? Lesson02Check.check(c, (p2p, buf) -> {
                    reduceScatter(p2p, buf, bug.name().startsWith("RS") ? bug : Bug.NONE);
                    allGather(p2p, buf, bug);
                }, false, WAIT)
                : Lesson02Check.check(c, (p2p, buf) -> reduceScatter(p2p, buf, bug), true, WAIT));
    }

    /** The explanation rank {@code rank} gets for {@code bug} on 4 ranks; it must be a wrong answer. */
    private static String explain(boolean whole, Bug bug, int rank) throws Exception {
        Check c = run(4, whole, bug).get(rank);
        assertFalse(c.passed(), bug + ": " + c);
        return c.title() + " | " + c.explanation();
    }

    @Test
    void segmentsAreBalancedLikeTheToolkits() {
        int[] starts = new int[4];
        int[] lengths = new int[4];
        for (int j = 0; j < 4; j++) {
            starts[j] = Lesson02.segmentStart(10, 4, j);
            lengths[j] = Lesson02.segmentLength(10, 4, j);
        }
        assertArrayEquals(new int[] {0, 3, 6, 8}, starts);
        assertArrayEquals(new int[] {3, 3, 2, 2}, lengths);
        assertEquals(0, Lesson02.segmentLength(3, 4, 3));
        assertArrayEquals(new int[] {7, 1003, 1, 3}, Lesson02.checkLengths(4));
        assertArrayEquals(new int[] {7, 1003, 1}, Lesson02.checkLengths(2));
    }

    @Test
    void theRightRingPassesBothChecksOnOneToFiveRanks() throws Exception {
        for (int p = 1; p <= 5; p++) {
            for (boolean whole : new boolean[] {false, true}) {
                for (Check c : run(p, whole, Bug.NONE)) {
                    assertTrue(c.passed(), p + " ranks: " + c);
                }
            }
        }
    }

    @Test
    void reduceScatterMistakesAreExplained() throws Exception {
        assumeNotStrict();
        assertTrue(explain(false, Bug.RS_NOTHING, 1).contains("unchanged"));
        assertTrue(explain(false, Bug.RS_STUB, 0).contains("not written yet"));
        assertTrue(explain(false, Bug.RS_SKIPS_LAST_STEP, 2).contains("A missing step? The loop needs p - 1 = 3 steps"));
        String original = explain(false, Bug.RS_PASSES_ORIGINAL, 3);
        assertTrue(original.contains("holds the sum of ranks [2, 3] only; missing: [0, 1]"), original);
        assertTrue(original.contains("passes on the partial sum"), original);
        assertTrue(explain(false, Bug.RS_WRONG_NEIGHBOUR, 1).contains("A wrong neighbour or segment number"));
        String shifted = explain(false, Bug.RS_SHIFTED, 2);
        assertTrue(shifted.contains("shifted by"), shifted);
        String twice = explain(false, Bug.RS_ADDS_OWN_AGAIN, 0);
        assertTrue(twice.contains("double count") && twice.contains("rank 0"), twice);
        assertTrue(explain(false, Bug.RS_WHOLE_ALLREDUCE, 3).contains("whole all-reduce"));
        assertTrue(explain(false, Bug.RS_JAVA_MOD, 0).contains("Math.floorMod"));
        String segment = explain(false, Bug.RS_NOTHING, 2);
        assertTrue(segment.contains("with 7 elements, segment 2 (elements 4..5)"), segment);
    }

    @Test
    void aSendrecvToTheWrongNeighbourTimesOutOnEveryRankAndTheNextRunWorks() {
        assumeNotStrict();
        List<Check[]> both = ThreadRanks.run(4, b -> b.timeout(Duration.ofSeconds(20)), Duration.ofSeconds(60), c ->
                new Check[] {Lesson02Check.check(c, (p2p, buf) -> reduceScatter(p2p, buf, Bug.RS_SENDS_LEFT), true, WAIT),
                        Lesson02Check.check(c, (p2p, buf) -> reduceScatter(p2p, buf, Bug.NONE), true, WAIT)});
        for (int r = 0; r < 4; r++) {
            Check wrong = both.get(r)[0];
            assertFalse(wrong.passed(), wrong.toString());
            String said = wrong.title() + " | " + wrong.explanation();
            assertTrue(said.contains("a Sendrecv whose message never came") && said.contains("rank " + r + " waited 2 s"
                    + " for a message from rank " + (r + 3) % 4) && said.contains("sends to right = (rank + 1) % size"), said);
            assertTrue(both.get(r)[1].passed(), "the run after the timed-out one, rank " + r + ": " + both.get(r)[1]);
        }
    }

    @Test
    void codeRightOnlyForTheNotebooksSizeFailsOnThreadRanks() {
        assumeNotStrict();
        List<Check> checks = run(4, false, Bug.RS_CELL_SIZE);
        Check rank0 = checks.get(0);
        assertFalse(rank0.passed(), rank0.toString());
        assertTrue(rank0.title().contains("right on 4 ranks, wrong on 1 ranks as threads"), rank0.toString());
        assertTrue(rank0.explanation().contains("comm.rank(), comm.size()"), rank0.toString());
        assertTrue(checks.get(1).passed(), "ranks other than 0 check the notebook's ranks only: " + checks.get(1));
    }

    @Test
    void allGatherMistakesAreExplained() throws Exception {
        assumeNotStrict();
        String none = explain(true, Bug.AG_NOTHING, 1);
        assertTrue(none.contains("the all-gather did not run") && none.contains("Segment 0 (elements 0..1) holds the sum"
                + " of ranks [1] only"), none);
        assertExplained(true, Bug.AG_SENDS_WRONG_SEGMENT, 2, "A wrong neighbour or segment number");
        assertExplained(true, Bug.AG_ADDS, 0, "must copy");
        assertExplained(true, Bug.AG_SKIPS_LAST_STEP, 3, "stopped early");
        assertExplained(true, Bug.RS_SKIPS_LAST_STEP, 0, "The reduce-scatter half is wrong");
        assertExplained(true, Bug.RS_STUB, 2, "not written yet");
    }

    private static void assertExplained(boolean whole, Bug bug, int rank, String words) throws Exception {
        String e = explain(whole, bug, rank);
        assertTrue(e.contains(words), bug + ": " + e);
    }

    @Test
    void theSweepTimesEveryCommunicatorAndChecksIt() throws Exception {
        List<RingCommunicator> ring = RingCommunicator.threads(2, b -> { });
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<BenchResults>> fs = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                int k = r;
                fs.add(pool.submit(() -> Lesson02.time(ring.get(k), Lesson02.sweep().sizes(1024, 64 << 10, 8),
                        new java.util.LinkedHashMap<>(Map.of("ring", ring.get(k))), Map.of())));
            }
            BenchResults a = fs.get(0).get(60, TimeUnit.SECONDS);
            assertEquals(List.of(1024L, 8192L, 65536L), a.rows().stream().map(BenchRow::bytes).toList());
            assertTrue(a.allCorrect(), a.text());
            assertTrue(a.rows().stream().allMatch(x -> x.placement().equals("out-of-place") && x.busbw() > 0), a.text());
        } finally {
            pool.shutdownNow();
            ring.forEach(RingCommunicator::close);
        }
    }

    private static BenchRow row(String comm, long bytes, double us) {
        return new BenchRow(comm, "allReduce", 4, "float32", "sum", 0, bytes, bytes / 4, "out-of-place", 5, us, 1, 1, 0,
                Double.NaN, Double.NaN, Double.NaN);
    }

    @Test
    void theTimingTextFollowsTheNumbers() {
        BenchResults ringWins = new BenchResults(List.of(row("naive", 1024, 100), row("naive", 4 << 20, 20000),
                row("ring", 1024, 300), row("ring", 4 << 20, 10000)));
        String s = Lesson02.timingSummary(ringWins, 2);
        assertTrue(s.contains("At 4 MiB the ring took 10000 us, the naive all-reduce 20000 us: the ring was 2.00x faster"), s);
        assertTrue(s.contains("At 1 KiB: ring 300 us, naive 100 us (ring 3.00x slower)"), s);
        BenchResults ringLoses = new BenchResults(List.of(row("naive", 1024, 100), row("naive", 4 << 20, 10000),
                row("ring", 1024, 100), row("ring", 4 << 20, 15000)));
        String t = Lesson02.timingSummary(ringLoses, 2);
        assertTrue(t.contains("the ring was slower (0.67x)") && t.contains("The 4 ranks share 2 cores"), t);
        assertTrue(t.contains("(about the same)") && !t.contains("did not show"), t);
        assertFalse(s.contains("Here that did not show"), s);
        BenchResults smallRingWins = new BenchResults(List.of(row("naive", 1024, 300), row("naive", 4 << 20, 10000),
                row("ring", 1024, 100), row("ring", 4 << 20, 15000)));
        assertTrue(Lesson02.timingSummary(smallRingWins, 2).contains("(ring 3.00x faster)"));
        assertTrue(Lesson02.timingSummary(smallRingWins, 2).contains("Here that did not show"));
        assertTrue(Lesson02.timingSummary(ringLoses, 8).contains("Copies between threads"));
    }
}
