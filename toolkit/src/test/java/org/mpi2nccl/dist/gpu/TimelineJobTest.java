package org.mpi2nccl.dist.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;

/**
 * The recorded job of {@link TimelineGpuTest}'s two-GPU test, checked without a GPU: its options plan several
 * buckets for the lesson's CNN, and the same job on CPU ranks (MPI route, two MPJ processes) records each bucket's
 * all-reduce once per rank and recorded step, as the GPU job must.
 */
class TimelineJobTest {
    @TempDir
    Path dir;

    @Test
    void theJobsOptionsPlanSeveralBucketsWhereAWholeModelBucketWouldBeOne() {
        List<String> job = TimelineGpuTest.timelineJob("nccl", "cuda", dir, dir.resolve("trace.json"));
        int buckets = TimelineGpuTest.plannedBuckets(job);
        assertTrue(buckets >= 2, "several buckets to overlap: " + buckets);
        // The CNN is 225 floats, 900 bytes: with 4096-byte buckets it is a single bucket, and only "all-reduce 0" exists.
        List<String> big = new ArrayList<>(job);
        big.replaceAll(a -> a.startsWith("bucket-bytes=") ? "bucket-bytes=4096" : a);
        assertEquals(1, TimelineGpuTest.plannedBuckets(big), "the whole model in one 4096-byte bucket");
    }

    @Test
    void theSameJobOnCpuRanksRecordsEachBucketOnce() throws Exception {
        Path trace = dir.resolve("trace.json");
        List<String> job = TimelineGpuTest.timelineJob("mpi", "cpu", dir, trace);
        JobResult r = Mpj.launch(EquivalenceRank.class).ranks(2).device(MpjDevice.NIODEV).args(job.toArray(new String[0]))
                .timeout(Duration.ofSeconds(120)).run();
        assertTrue(r.succeeded(), r.toString());
        TimelineGpuTest.checkEveryBucket(trace, 2, TimelineGpuTest.plannedBuckets(job));
    }
}
