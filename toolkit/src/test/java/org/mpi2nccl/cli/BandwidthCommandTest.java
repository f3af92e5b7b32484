package org.mpi2nccl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.bench.BenchResults;

/** {@code mpi2nccl bandwidth} on 2 MPJ ranks: CSV and plot written, every result checked; bad options refused. */
class BandwidthCommandTest {

    @Test
    void runsTheHarnessOnMpjRanksAndWritesCsvAndPlot(@TempDir Path out) throws Exception {
        int rc = Main.run("bandwidth", "-np", "2", "--comms", "mpj,ring", "-b", "8", "-e", "4K", "-f", "8", "-n", "3",
                "-w", "1", "--min-iters", "1", "--out", out.toString());
        assertEquals(0, rc);
        BenchResults r = BenchResults.readCsv(out.resolve("bandwidth.csv"));
        // 8, 64, 512, 4096 bytes, in and out of place, two communicators
        assertEquals(16, r.rows().size(), r.text());
        assertTrue(r.allCorrect());
        assertTrue(r.rows().stream().allMatch(x -> x.ranks() == 2));
        assertTrue(Files.size(out.resolve("busbw.png")) > 1000);
    }

    @Test
    void unknownCommunicatorsAndGpuOnMulticoreAreRefused() {
        assertEquals(2, Main.run("bandwidth", "--comms", "mpj,carrier-pigeon"));
        assertEquals(2, Main.run("bandwidth", "--comms", "nccl", "-dev", "multicore"));
    }
}
