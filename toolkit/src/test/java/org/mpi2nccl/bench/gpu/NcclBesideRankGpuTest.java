package org.mpi2nccl.bench.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;

/**
 * {@link NcclBesideRank} on one GPU (a 1-rank NCCL communicator, which launches no kernel): the program runs through
 * and reports four positive, finite times. Its question needs two GPUs; this checks the program, not the answer.
 */
@Tag("gpu")
class NcclBesideRankGpuTest {
    @Test
    void oneRankReportsItsFourTimes() {
        GpuTests.requireGpu();
        JobResult r = Mpj.launch(NcclBesideRank.class).ranks(1).device(MpjDevice.NIODEV).args("allreduces=20")
                .onLine(System.out::println).timeout(Duration.ofSeconds(180)).run();
        assertTrue(r.succeeded(), r.toString());
        List<Map<String, Object>> reports = r.reports();
        assertEquals(1, reports.size(), "one report per rank: " + reports);
        for (String k : List.of("before_nccl_us", "with_nccl_us", "after_epoch_us", "recorded_with_nccl_us")) {
            double us = ((Number) reports.get(0).get(k)).doubleValue();
            assertTrue(us > 0 && Double.isFinite(us), k + ": " + us);
        }
    }
}
