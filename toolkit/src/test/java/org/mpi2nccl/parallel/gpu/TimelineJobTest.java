package org.mpi2nccl.parallel.gpu;

import org.mpi2nccl.bench.gpu.EquivalenceRank;
import org.mpi2nccl.bench.gpu.TimelineRank;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.parallel.timing.TimelineTrace;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;

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

    /** The program that records lesson 05's timeline, on two CPU ranks and tiny batches: a trace with every bucket, and its chart. */
    @Test
    void theTimelineProgramOnCpuRanksWritesEveryBucketsAllReduce() throws Exception {
        Path trace = dir.resolve("timeline/trace.json"), chart = dir.resolve("timeline/trace.png");
        JobResult r = Mpj.launch(TimelineRank.class).ranks(2).device(MpjDevice.NIODEV)
                .args("route=mpi", "device=cpu", "batch-per-rank=4", "warmup=1", "steps=2", "examples=64",
                        "bucket-bytes=" + (512 << 10), "trace=" + trace, "chart=" + chart)
                .timeout(Duration.ofSeconds(120)).run();
        assertTrue(r.succeeded(), r.toString());
        TimelineTrace t = TimelineTrace.fromJson(Files.readString(trace));
        assertEquals(2, t.ranks());
        int buckets;
        try (Module net = Models.cnn(3, 32, 32, 64, Device.cpu(), 1)) {
            buckets = GpuDataParallel.plan(net.parameters(), 512 << 10, 0).size();
        }
        assertTrue(buckets >= 2, "several buckets: " + buckets);
        assertEquals(2 * 2 * buckets, t.allReduces(), "2 ranks x 2 steps x " + buckets + " buckets");
        System.out.println("chart written: " + Files.exists(chart) + " (needs fonts)");
    }
}
