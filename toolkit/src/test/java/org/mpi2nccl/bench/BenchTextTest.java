package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The harness's printed table reads back into the rows it was printed from (as far as the table shows them). */
class BenchTextTest {
    private static BenchRow row(String comm, long bytes, String placement, double us, long wrong) {
        return new BenchRow(comm, "allReduce", 2, "float32", "sum", 0, bytes, bytes / 4, placement, 20, us,
                BusBandwidth.algbw(bytes, us / 1e6), BusBandwidth.busbw(org.mpi2nccl.comm.Collective.ALL_REDUCE, 2, bytes, us / 1e6),
                wrong, Double.NaN, Double.NaN, Double.NaN);
    }

    @Test
    void printedTableReadsBack() {
        List<BenchRow> rows = List.of(row("nccl", 1 << 20, "out-of-place", 308.7, 0), row("nccl", 1 << 20, "in-place", 94.4, 0),
                row("nccl", 1L << 30, "out-of-place", 3311.4, 0), row("nccl", 1L << 30, "in-place", 3305.7, -1),
                row("ring", 4096, "in-place", 51.0, 0));
        String text = new BenchResults(rows).text();
        List<String> lines = new ArrayList<>();
        for (String l : text.split("\n")) {
            lines.add("[rank 0] " + l);          // as the launcher prints it
        }
        lines.add(2, "[mpj] NCCL version 2.28.3+cuda13.0");
        List<BenchRow> back = BenchText.parse(lines).rows();
        assertEquals(rows.size(), back.size(), text);
        for (BenchRow want : rows) {
            BenchRow got = back.stream().filter(r -> r.communicator().equals(want.communicator()) && r.bytes() == want.bytes()
                    && r.placement().equals(want.placement())).findFirst().orElseThrow(() -> new AssertionError("missing " + want));
            assertEquals(want.timeUs(), got.timeUs(), 0.05);
            assertEquals(want.busbw(), got.busbw(), 0.005);
            assertEquals(want.wrong(), got.wrong());
            assertEquals(want.count(), got.count());
            assertEquals(2, got.ranks());
            assertEquals(0, got.iters(), "the table does not say how many calls were timed");
        }
    }

    @Test
    void aRecordedGpuLogReads() throws Exception {
        java.nio.file.Path log = java.nio.file.Path.of("..", "results", "bandwidth-2gpu", "h200x2-run2-bandwidth-nccl.log");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(log), "recorded log not in this checkout: skipped");
        BenchResults r = BenchText.read(log);
        BenchRow gib = r.rows().stream().filter(x -> x.communicator().equals("nccl") && x.bytes() == 1L << 30
                && x.placement().equals("out-of-place")).findFirst().orElseThrow();
        assertEquals(324.26, gib.busbw(), 1e-9);
        assertEquals(Arrays.asList("nccl", "nccl-checked"), r.rows().stream().map(BenchRow::communicator).distinct().toList());
    }

    @Test
    void aTruncatedColumnIsAnError() {
        List<String> lines = List.of("# nccl allReduce on 2 ranks", "  1024  256  float32  sum  0   12.5  0.08  0.08  0   13.0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BenchText.parse(lines));
        assertEquals(true, e.getMessage().contains("time, algbw, busbw"), e.getMessage());
    }
}
