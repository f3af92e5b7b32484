package org.mpi2nccl.bench.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.JobTimeoutException;
import org.mpi2nccl.launch.RankFailedException;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;

/**
 * {@link NcclBesideRank} on one GPU (a 1-rank NCCL communicator, which launches no kernel): the program runs through
 * and reports four positive, finite times. Its question needs two GPUs; this checks the program, not the answer.
 * On two GPUs: the setting that once stopped both ranks for good ends in time, and the same job without it is never
 * aborted.
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

    /**
     * {@code NCCL_P2P_USE_CUDA_MEMCPY=1} left both ranks of this job inside {@code cuMemFreeHost} (growing a pinned
     * upload buffer) until the job's limit: that call waits for the whole GPU with no timeout while NCCL's copy is
     * in flight. Now a bounded wait comes first: the job ends within 70 s, either well or with the GPU wait named
     * (rank, GPU and the call it came before), and never with the launcher's bare time limit.
     */
    @Test
    void theMemcpySettingEndsWithin70SecondsNamedAndAHealthyRunIsNeverAborted() {
        GpuTests.requireGpu();
        int gpus = Cuda.deviceCount();
        if (gpus < 2) {
            System.out.println("needs 2 GPUs, this machine has " + gpus + ": skipped");
            Assumptions.assumeTrue(false, "needs 2 GPUs, this machine has " + gpus);
        }
        JobResult healthy = Mpj.launch(NcclBesideRank.class).ranks(2).device(MpjDevice.NIODEV).args("allreduces=200")
                .timeout(Duration.ofSeconds(180)).run();
        assertTrue(healthy.succeeded(), "without the setting the job must finish: " + healthy);
        long t0 = System.nanoTime();
        String ending;
        try {
            JobResult r = Mpj.launch(NcclBesideRank.class).ranks(2).device(MpjDevice.NIODEV).args("allreduces=200")
                    .env("NCCL_P2P_USE_CUDA_MEMCPY", "1").env("NCCL_DEBUG", "WARN").timeout(Duration.ofSeconds(65))
                    .onLine(System.out::println).run();
            assertTrue(r.succeeded(), r.toString());
            ending = "well";
        } catch (RankFailedException e) {
            String m = e.getMessage();
            assertTrue(m.contains("rank") && (m.contains("did not finish the work queued before")
                    || m.contains("CollectiveTimeoutException") || m.contains("ncclCommAbort")), m);
            ending = "named: " + m;
        } catch (JobTimeoutException e) {
            throw new AssertionError("ended by the launcher's limit, with no call named: " + e.getMessage(), e);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf("NCCL_P2P_USE_CUDA_MEMCPY=1: the job ended after %.1f s, %s%n", s, ending);
        assertTrue(s < 70, "the job ran " + s + " s");
    }
}
