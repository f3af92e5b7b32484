package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.bench.gpu.EquivalenceRank;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.RunningJob;
import org.mpi2nccl.tensor.Device;

/**
 * The correctness proof on MPJ ranks through the MPI route (MPJ Express's Allreduce): 1 to 4 ranks with
 * per-rank batch 24/N end with the parameters of one rank trained on batch 24, within float rounding.
 */
class DataParallelMpjTest {
    @TempDir
    Path dir;

    @Test
    void mpiRouteOnOneToFourMpjRanksMatchesOneRankWithTheWholeBatch() throws Exception {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("cnn", new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11),
                24, 10, 3, 0.1f, 0.9f);
        // The four jobs (1 to 4 ranks, each a JVM of its own writing to its own folder) run side by side while the
        // reference trains here; each is then checked in turn.
        List<RunningJob> jobs = new ArrayList<>();
        for (int n = 1; n <= 4; n++) {
            Path out = Files.createDirectories(dir.resolve("np" + n));
            jobs.add(Mpj.launch(EquivalenceRank.class).ranks(n).device(MpjDevice.MULTICORE)
                    .args("route=mpi", "device=cpu", "model=cnn", "examples=192", "batch=24", "steps=10", "seed=3",
                            "out=" + out)
                    .timeout(Duration.ofSeconds(120)).start());
        }
        try {
            float[] reference = EquivalenceCheck.singleRank(s, Device.cpu());
            for (int n = 1; n <= 4; n++) {
                Path out = dir.resolve("np" + n);
                JobResult r = jobs.get(n - 1).awaitResult();
                assertTrue(r.succeeded(), r.toString());
                float[] first = EquivalenceRank.read(out.resolve("rank-0.f32"));
                for (int rank = 0; rank < n; rank++) {
                    float[] p = EquivalenceRank.read(out.resolve("rank-" + rank + ".f32"));
                    double d = EquivalenceCheck.relativeDifference(p, reference);
                    System.out.printf("MPI route, %d MPJ ranks, batch %d each: rank %d vs one rank with batch 24: max relative difference %.2e%n",
                            n, 24 / n, rank, d);
                    assertTrue(d < 2e-5, n + " ranks, rank " + rank + ": " + d);
                    assertEquals(0, EquivalenceCheck.differingElements(p, first), "rank " + rank + " holds rank 0's bits");
                }
            }
        } finally {
            for (RunningJob job : jobs) if (job.isAlive()) job.stop(); // after a failed check: none outlives the test
        }
    }
}
