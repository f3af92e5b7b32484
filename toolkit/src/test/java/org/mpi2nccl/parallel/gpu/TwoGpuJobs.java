package org.mpi2nccl.parallel.gpu;

import org.mpi2nccl.bench.gpu.EquivalenceRank;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Assumptions;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;

/**
 * What the two-GPU data-parallel tests share: the skip on a machine without two GPUs, and an
 * {@link EquivalenceRank} job of two niodev ranks (one process, and so one GPU, each).
 */
public final class TwoGpuJobs {
    private TwoGpuJobs() {}

    /** Skips the calling test with "no GPU" or "no second GPU" when this machine lacks two GPUs. */
    public static void requireTwoGpus() {
        GpuTests.requireGpu();
        if (Cuda.deviceCount() < 2) {
            String m = "no second GPU: skipped (this machine has " + Cuda.deviceCount() + ")";
            System.out.println(m);
            Assumptions.assumeTrue(false, m);
        }
    }

    /** Runs {@link EquivalenceRank} with {@code args} on two niodev ranks; fails unless it succeeds; the lines it printed. */
    public static List<String> runEquivalenceRanks(List<String> args) {
        List<String> lines = new CopyOnWriteArrayList<>();
        JobResult r = Mpj.launch(EquivalenceRank.class).ranks(2).device(MpjDevice.NIODEV).args(args.toArray(new String[0]))
                .onLine(l -> {
                    System.out.println(l);
                    lines.add(String.valueOf(l));
                }).timeout(Duration.ofSeconds(180)).run();
        assertTrue(r.succeeded(), r.toString());
        return lines;
    }
}
