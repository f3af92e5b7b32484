package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchRow;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.RingCommunicator;

/**
 * Lessons 02 and 04: the reduce-scatter exercise's check on thread ranks (a right answer, and the usual wrong ones
 * explained), the sweep helper, and the bus bandwidth exercise.
 */
class CommLessonsTest {
    @BeforeAll
    static void notStrict() {
        boolean strict = "1".equals(System.getenv(Check.STRICT_ENV));
        if (strict) {
            System.out.println(Check.STRICT_ENV + "=1: wrong answers throw, explanation tests skipped");
        }
        assumeFalse(strict, Check.STRICT_ENV + "=1: wrong answers throw, explanation tests skipped");
    }

    /** One student attempt per rank: {@code (comm, buf)} may use comm's send/recv as the notebook uses MPJ's. */
    private static List<Check> runExercise(int size, BiConsumer<Communicator, float[]> attempt) throws Exception {
        List<RingCommunicator> comms = RingCommunicator.threads(size, b -> b.timeout(java.time.Duration.ofSeconds(5)));
        ExecutorService pool = Executors.newFixedThreadPool(size);
        try {
            List<Future<Check>> fs = new ArrayList<>();
            for (RingCommunicator c : comms) {
                fs.add(pool.submit(() -> Lesson02.checkReduceScatter(c, buf -> attempt.accept(c, buf))));
            }
            List<Check> out = new ArrayList<>();
            for (Future<Check> f : fs) {
                out.add(f.get(60, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
            comms.forEach(RingCommunicator::close);
        }
    }

    /** The reference answer, with the segment numbers shifted by {@code shift} and {@code steps} steps. */
    private static void ring(Communicator c, float[] buf, int shift, int steps, boolean sendOriginal) {
        int p = c.size(), r = c.rank(), seg = Lesson02.SEGMENT;
        float[] original = buf.clone();
        float[] out = new float[seg], in = new float[seg];
        for (int step = 0; step < steps; step++) {
            int s = Math.floorMod(r - step - 1 + shift, p), q = Math.floorMod(r - step - 2 + shift, p);
            System.arraycopy(sendOriginal ? original : buf, s * seg, out, 0, seg);
            if (r % 2 == 0) {
                c.send(HostBuffer.of(out), (r + 1) % p);
                c.recv(HostBuffer.of(in), (r + p - 1) % p);
            } else {
                c.recv(HostBuffer.of(in), (r + p - 1) % p);
                c.send(HostBuffer.of(out), (r + 1) % p);
            }
            for (int i = 0; i < seg; i++) {
                buf[q * seg + i] += in[i];
            }
        }
    }

    @Test
    void theRingReduceScatterIsRightOnOneToFourRanks() throws Exception {
        for (int p = 1; p <= 4; p++) {
            final int size = p;
            for (Check c : runExercise(p, (comm, buf) -> ring(comm, buf, 0, size - 1, false))) {
                assertTrue(c.passed(), p + " ranks: " + c);
            }
        }
    }

    @Test
    void wrongAnswersAreExplained() throws Exception {
        assertTrue(runExercise(4, (c, buf) -> { }).get(1).explanation().contains("unchanged"));
        assertTrue(runExercise(4, (c, buf) -> ring(c, buf, 1, 3, false)).get(2).explanation().contains("shifted by"));
        assertTrue(runExercise(4, (c, buf) -> ring(c, buf, 0, 2, false)).get(0).explanation().contains("missing"));
        assertTrue(runExercise(4, (c, buf) -> ring(c, buf, 0, 3, true)).get(3).explanation().contains("missing"),
                "passing on the original data instead of the partial sum loses contributions");
        assertTrue(runExercise(3, (c, buf) -> c.allReduce(HostBuffer.of(buf), org.mpi2nccl.comm.Reduction.SUM)).get(0)
                .explanation().contains("whole all-reduce"));
        assertTrue(runExercise(2, (c, buf) -> {
            throw new ArrayIndexOutOfBoundsException("Index -1 out of bounds for length 6");
        }).get(0).explanation().contains("Math.floorMod"));
        Check twice = Lesson02.judge(0, 2, Lesson02.exerciseInput(0, 2), twiceAdded(), new float[] {0, 0, 0});
        assertTrue(twice.explanation().contains("added twice"), twice.toString());
    }

    /** Rank 0 of 2 with rank 1's contribution added twice to segment 0. */
    private static float[] twiceAdded() {
        float[] a = Lesson02.exerciseInput(0, 2);
        float[] b = Lesson02.exerciseInput(1, 2);
        for (int i = 0; i < Lesson02.SEGMENT; i++) {
            a[i] += 2 * b[i];
        }
        return a;
    }

    @Test
    void theSweepTimesEveryCommunicatorAndChecksIt() throws Exception {
        List<RingCommunicator> ring = RingCommunicator.threads(2, b -> { });
        List<RingCommunicator> naive = RingCommunicator.threads(2, b -> b.algorithm(RingCommunicator.Algorithm.NAIVE));
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
            naive.forEach(RingCommunicator::close);
        }
    }

    @Test
    void busbwSideBySide() {
        BenchRow a = new BenchRow("nccl", "allReduce", 2, "float32", "sum", 0, 1 << 20, 1 << 18, "in-place", 5, 30, 35, 35, 0,
                Double.NaN, Double.NaN, Double.NaN);
        BenchRow b = new BenchRow("torch.distributed", "allReduce", 2, "float32", "sum", 0, 1 << 20, 1 << 18, "in-place", 5, 34,
                31, 31, 0, Double.NaN, Double.NaN, Double.NaN);
        BenchRow small = new BenchRow("nccl", "allReduce", 2, "float32", "sum", 0, 1024, 256, "in-place", 5, 10, 0.1, 0.1, 0,
                Double.NaN, Double.NaN, Double.NaN);
        String t = Lesson04.busbwTable(new BenchResults(List.of(a, b, small)), "in-place", 1 << 20);
        String[] lines = t.split("\n");
        assertEquals(3, lines.length, t);
        assertTrue(lines[1].contains("nccl") && lines[1].contains("torch.distributed"), t);
        assertTrue(lines[2].contains("35.00") && lines[2].contains("31.00"), t);
    }

    @Test
    void busBandwidthFormula() {
        assertTrue(Lesson04.checkBusBandwidth((b, s, n) -> b / s / 1e9 * 2 * (n - 1) / n).passed());
        assertTrue(Lesson04.checkBusBandwidth((b, s, n) -> b / s / 1e9).explanation().contains("algorithm bandwidth"));
        assertTrue(Lesson04.checkBusBandwidth((b, s, n) -> b / s / 1e9 * 2).explanation().contains("not 2"));
        assertTrue(Lesson04.checkBusBandwidth((b, s, n) -> b / s / 1e9 * (n - 1) / n).explanation().contains("one half"));
        assertTrue(Lesson04.checkBusBandwidth((b, s, n) -> b / s / (1L << 30) * 2 * (n - 1) / n).explanation().contains("2^30"));
        assertTrue(Lesson04.checkBusBandwidth((b, s, n) -> 0).explanation().contains("no answer yet"));
    }

    @Test
    void withoutAGpuTheBootstrapRunsOnTheCpuCliqueAndRecordedResultsLoad() throws Exception {
        assumeFalse(Lesson04.hasGpu(), "a GPU is here: the no-GPU path is not what runs");
        assertTrue(Lesson04.gpuStatus().startsWith("no GPU"), Lesson04.gpuStatus());
        byte[] id = Lesson04.clique().uniqueId();
        assertEquals(128, id.length);
        assertTrue(Lesson04.clique() instanceof org.mpi2nccl.comm.CpuClique, "without a GPU the CPU clique runs the steps");
        assertEquals(Lesson04.hex(id, 8).length(), 16 + 3);
        String oldDir = System.getProperty("user.dir");
        BenchResults r = Lesson04.recorded();
        if (Lesson04.find(Lesson04.RECORDED + "/nccl/bandwidth.csv") != null) {
            assertNotNull(r, "recorded results from " + oldDir);
            assertTrue(r.rows().stream().anyMatch(x -> x.communicator().equals("torch.distributed")), "torch rows");
            assertTrue(r.rows().stream().anyMatch(x -> x.communicator().startsWith("mpj-staged")), "MPI route rows");
            assertTrue(r.rows().stream().anyMatch(x -> x.communicator().equals("nccl")), "nccl rows");
            assertNotNull(r.chart("t", "allReduce", "in-place"));
        }
    }
}
