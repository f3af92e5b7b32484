package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The busbw ratio of two communicators keeps each collective and rank count apart: their sizes must not mix. */
class RatioTableTest {
    private static BenchRow row(String comm, String collective, int ranks, long bytes, double busbw) {
        return new BenchRow(comm, collective, ranks, "float32", "sum", 0, bytes, bytes / 4, "in-place", 20, 10,
                busbw, busbw, 0, Double.NaN, Double.NaN, Double.NaN);
    }

    @Test
    void eachCollectiveHasItsOwnSectionAndLowestRatio() {
        long mib = 1 << 20;
        BenchResults all = new BenchResults(List.of(
                row("nccl", "allReduce", 4, mib, 100), row("nccl-tests", "allReduce", 4, mib, 50),
                row("nccl", "broadcast", 4, mib, 90), row("nccl-tests", "broadcast", 4, mib, 100),
                row("nccl", "allReduce", 4, 1024, 1), row("nccl-tests", "allReduce", 4, 1024, 9)));
        String t = all.ratioTable("nccl", "nccl-tests", mib);
        assertTrue(t.contains("# allReduce, 4 ranks") && t.contains("# broadcast, 4 ranks"), t);
        assertTrue(t.contains("# lowest ratio (allReduce, 4 ranks): 2.000"), "allReduce's 1 MiB is 100/50: " + t);
        assertTrue(t.contains("# lowest ratio (broadcast, 4 ranks): 0.900"), "broadcast's 1 MiB is 90/100: " + t);
        assertTrue(!t.contains("1 KiB"), "sizes below 'from' are left out: " + t);
    }
}
