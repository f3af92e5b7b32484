package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchRow;

/**
 * Lesson 04: the bus bandwidth exercise, the side-by-side table and the recorded results (lesson 02's tests are in
 * Lesson02Test).
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
        // the factor in int arithmetic: 2 * (n - 1) / n is 1 for every n; (n - 1) / n is 0
        String intFactor = Lesson04.checkBusBandwidth((b, s, n) -> b / s / 1e9 * (2 * (n - 1) / n)).explanation();
        assertTrue(intFactor.contains("integer arithmetic") && intFactor.contains("2.0 * (n - 1) / n"), intFactor);
        String intHalf = Lesson04.checkBusBandwidth((b, s, n) -> b / s / 1e9 * 2 * ((n - 1) / n)).explanation();
        assertTrue(intHalf.contains("integer arithmetic"), intHalf);
    }

    @Test
    void aWrongBusBandwidthIsNamedAtItsFirstWrongRankCountWithoutTheRightNumber() {
        Check intFactor = Lesson04.checkBusBandwidth((b, s, n) -> b / s / 1e9 * (2 * (n - 1) / n));
        assertFalse(intFactor.passed());
        // int division is right on 1 and 2 ranks (factors 0 and 1) and wrong from 3 on
        assertTrue(intFactor.title().startsWith("busbw on 3 ranks:") && intFactor.title().contains("right on 1 and 2 ranks"),
                intFactor.title());
        assertTrue(intFactor.explanation().contains("computed in integer arithmetic"), intFactor.explanation());
        String rightOn3 = String.format(java.util.Locale.ROOT, "%.1f", (1L << 30) / 3.3e-3 / 1e9 * 2 * 2 / 3);
        assertFalse((intFactor.title() + intFactor.explanation()).contains(rightOn3), intFactor.toString());
        Check algbw = Lesson04.checkBusBandwidth((b, s, n) -> b / s / 1e9);
        assertTrue(algbw.title().startsWith("busbw on 1 rank:") && !algbw.title().contains("nccl-tests"), algbw.title());
    }

    @Test
    void withoutAGpuTheBootstrapRunsOnTheCpuCliqueAndRecordedResultsLoad() throws Exception {
        assumeFalse(Lesson04.hasGpu(), "a GPU is here: the no-GPU path is not what runs");
        assertTrue(Lesson04.gpuStatus().startsWith("no GPU"), Lesson04.gpuStatus());
        byte[] id = Lesson04.clique().uniqueId();
        assertEquals(128, id.length);
        assertTrue(Lesson04.clique() instanceof org.mpi2nccl.comm.ring.CpuClique, "without a GPU the CPU clique runs the steps");
        assertEquals(Lesson04.hex(id, 8).length(), 16 + 3);
        String oldDir = System.getProperty("user.dir");
        BenchResults r = Lesson04.recorded();
        if (Recorded.BANDWIDTH.file("nccl/bandwidth.csv") != null) {
            assertNotNull(r, "recorded results from " + oldDir);
            assertTrue(r.rows().stream().anyMatch(x -> x.communicator().equals("torch.distributed")), "torch rows");
            assertTrue(r.rows().stream().anyMatch(x -> x.communicator().startsWith("mpj-staged")), "MPI route rows");
            assertTrue(r.rows().stream().anyMatch(x -> x.communicator().equals("nccl")), "nccl rows");
            assertNotNull(r.chart("t", "allReduce", "in-place"));
        }
    }
}
