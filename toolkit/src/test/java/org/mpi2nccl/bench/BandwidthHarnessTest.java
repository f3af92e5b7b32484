package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ring.RingCommunicator;

/**
 * The harness on ranks as threads (the ring over a ThreadTransport): every collective measured and checked,
 * a planted wrong result caught, nccl-tests' bus-bandwidth factors, sizes, and the table/CSV/plot outputs.
 */
class BandwidthHarnessTest {

    /** Runs the harness on {@code ranks} thread ranks; {@code wrap} may replace a rank's communicator. */
    static List<List<BenchRow>> runOnThreads(int ranks, BenchSpec spec, Function<Communicator, Communicator> wrap) throws Exception {
        List<RingCommunicator> comms = RingCommunicator.threads(ranks, b -> b.timeout(Duration.ofSeconds(30)).chunkBytes(256));
        ExecutorService pool = Executors.newFixedThreadPool(ranks);
        try {
            List<Future<List<BenchRow>>> fs = new ArrayList<>();
            for (RingCommunicator c : comms) {
                fs.add(pool.submit(() -> new BandwidthHarness(wrap.apply(c), c, "ring", BenchMemory.host()).run(spec, null)));
            }
            List<List<BenchRow>> out = new ArrayList<>();
            for (Future<List<BenchRow>> f : fs) {
                out.add(f.get(60, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    private static BenchSpec small(Collective c) {
        return BenchSpec.defaults().collective(c).sizes(8, 4096, 4).iterations(1, 3, 1, 1);
    }

    @ParameterizedTest
    @EnumSource(value = Collective.class, names = {"ALL_REDUCE", "BROADCAST", "REDUCE", "ALL_GATHER", "REDUCE_SCATTER", "SEND_RECV"})
    void everyCollectiveIsMeasuredAndCheckedCorrect(Collective c) throws Exception {
        BenchSpec spec = small(c).root(2);
        List<List<BenchRow>> all = runOnThreads(3, spec, x -> x);
        List<BenchRow> rows = all.get(0);
        assertFalse(rows.isEmpty());
        for (BenchRow r : rows) {
            assertEquals(0, r.wrong(), r.toString());
            assertTrue(r.timeUs() > 0 && r.busbw() > 0, r.toString());
            assertEquals(r.algbw() * BusBandwidth.factor(c, 3), r.busbw(), 1e-9);
        }
        assertEquals(rows, all.get(2), "every rank gets the same rows (times agreed on the slowest rank)");
        assertEquals(c != Collective.SEND_RECV, rows.stream().anyMatch(r -> r.placement().equals("in-place")));
    }

    @Test
    void otherTypesAndReductionsAreExactToo() throws Exception {
        for (DataType t : DataType.values()) {
            for (Reduction op : Reduction.values()) {
                BenchSpec spec = small(Collective.ALL_REDUCE).type(t).op(op).sizes(64, 64, 2);
                for (BenchRow r : runOnThreads(4, spec, x -> x).get(1)) {
                    assertEquals(0, r.wrong(), t + " " + op + " " + r);
                }
            }
        }
    }

    /** A communicator that gets one element wrong on rank 1 (a planted bug the check must catch). */
    static Communicator plantedBug(Communicator c) {
        return new ForwardingCommunicator(c) {
            @Override
            public void allReduce(CommBuffer send, CommBuffer recv, Reduction op) {
                super.allReduce(send, recv, op);
                if (rank() == 1) {
                    HostBuffer h = (HostBuffer) recv;
                    h.setDouble(h.length() / 2, h.getDouble(h.length() / 2) + 1);
                }
            }

            @Override
            public void broadcast(CommBuffer send, CommBuffer recv, int root) {
                // a broadcast that does nothing: in place, non-roots keep their poison values
            }
        };
    }

    @Test
    void aPlantedWrongResultIsCountedAndFailsTheRun() throws Exception {
        List<BenchRow> rows = runOnThreads(2, small(Collective.ALL_REDUCE), BandwidthHarnessTest::plantedBug).get(0);
        assertTrue(rows.stream().allMatch(r -> r.wrong() == 1), rows.toString());
        assertFalse(new BenchResults(rows).allCorrect());
        List<BenchRow> bcast = runOnThreads(2, small(Collective.BROADCAST), BandwidthHarnessTest::plantedBug).get(0);
        // in place the root's buffer already holds the data and rank 1 keeps its poison; out of place neither
        // rank's output buffer was written
        assertTrue(bcast.stream().allMatch(r -> r.wrong() == (r.placement().equals("in-place") ? 1 : 2) * r.count()),
                "a broadcast that moves nothing leaves every non-root element wrong: " + bcast);
    }

    @Test
    void busBandwidthFactorsAreNcclTests() {
        assertEquals(1.0, BusBandwidth.factor(Collective.ALL_REDUCE, 2));
        assertEquals(1.5, BusBandwidth.factor(Collective.ALL_REDUCE, 4));
        assertEquals(1.75, BusBandwidth.factor(Collective.ALL_REDUCE, 8));
        assertEquals(0.75, BusBandwidth.factor(Collective.ALL_GATHER, 4));
        assertEquals(0.5, BusBandwidth.factor(Collective.REDUCE_SCATTER, 2));
        assertEquals(1.0, BusBandwidth.factor(Collective.BROADCAST, 8));
        assertEquals(1.0, BusBandwidth.factor(Collective.REDUCE, 8));
        assertEquals(1.0, BusBandwidth.factor(Collective.SEND_RECV, 2));
        assertEquals(2.0, BusBandwidth.algbw(4_000_000_000L, 2.0));
        assertThrows(IllegalArgumentException.class, () -> BusBandwidth.factor(Collective.BARRIER, 2));
    }

    @Test
    void sizesGoFromMinToMaxByTheFactor() {
        assertEquals(List.of(8L, 16L, 32L, 64L), BenchSpec.defaults().sizes(8, 64, 2).sizes());
        assertEquals(List.of(8L, 64L, 512L), BenchSpec.defaults().sizes(8, 1000, 8).sizes());
        assertEquals(List.of(8L), BenchSpec.defaults().type(DataType.FLOAT64).sizes(1, 8, 2).sizes(), "at least one element");
        assertEquals(1L << 30, BenchSpec.parseBytes("1G"));
        assertEquals(64L << 10, BenchSpec.parseBytes("64K"));
        assertEquals("16 MiB", BenchSpec.formatBytes(16L << 20));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BenchSpec.parseBytes("lots"));
        assertTrue(e.getMessage().contains("64K"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BenchSpec.defaults().sizes(64, 8, 2));
        assertThrows(IllegalArgumentException.class, () -> BenchSpec.defaults().collective(Collective.BARRIER));
    }

    @Test
    void allGatherSizesCountTheWholeBufferAsNcclTestsDoes() throws Exception {
        List<BenchRow> rows = runOnThreads(4, small(Collective.ALL_GATHER).sizes(64, 64, 2), x -> x).get(0);
        BenchRow r = rows.get(0);
        assertEquals(4, r.count(), "64 bytes of float32 over 4 ranks: 4 elements each");
        assertEquals(64, r.bytes());
    }

    @Test
    void resultsBecomeATableACsvTextAndAPlot(@TempDir Path dir) throws Exception {
        List<BenchRow> rows = new ArrayList<>(runOnThreads(2, small(Collective.ALL_REDUCE), x -> x).get(0));
        for (BenchRow r : List.copyOf(rows)) {
            rows.add(new BenchRow("other", r.collective(), r.ranks(), r.type(), r.op(), r.root(), r.bytes(), r.count(),
                    r.placement(), r.iters(), r.timeUs() * 2, r.algbw() / 2, r.busbw() / 2, r.wrong(), Double.NaN, Double.NaN, Double.NaN));
        }
        BenchResults res = new BenchResults(rows);
        assertEquals(rows.size(), res.table().rowCount());
        Path csv = dir.resolve("b.csv");
        res.writeCsv(csv);
        BenchResults back = BenchResults.readCsv(csv);
        assertEquals(rows.size(), back.rows().size());
        assertEquals(rows.get(3).busbw(), back.rows().get(3).busbw(), 1e-9);
        assertTrue(res.text().contains("# ring allReduce on 2 ranks") && res.text().contains("busbw"), res.text());
        assertEquals(2, res.chart("t", "allReduce", "out-of-place").getSeriesMap().size(), "one line per communicator");
        Path png = dir.resolve("busbw.png");
        res.writePng(png, "t", null, "out-of-place");
        assertTrue(Files.size(png) > 1000);
        assertTrue(res.allCorrect());
    }
}
