package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.bench.gpu.EquivalenceRank;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.tensor.Device;

/**
 * The correctness proof beyond 2 GPUs: 4, 8 and all of the machine's GPUs (as many as it has, above 2), one niodev rank
 * each, gradients all-reduced by NCCL inside the replayed CUDA graphs (the experiment's default), against one GPU
 * trained on the whole batch. 2 GPUs are {@link DataParallelGpuTest}'s; on CPU ranks, {@link DataParallelNRanksTest}.
 */
@Tag("gpu")
class DataParallelAllGpusTest {
    @TempDir
    Path dir;

    /** 4, 8 and the machine's count, those above 2 that it has. */
    static List<Integer> counts(int gpus) {
        List<Integer> out = new ArrayList<>();
        for (int n : new int[] {4, 8, gpus}) if (n > 2 && n <= gpus && !out.contains(n)) out.add(n);
        return out;
    }

    @Test
    void ncclWithCudaGraphsOnEveryGpuMatchesOneGpuWithTheWholeBatch() throws Exception {
        GpuTests.requireGpu();
        int gpus = Cuda.deviceCount();
        List<Integer> counts = counts(gpus);
        if (counts.isEmpty()) {
            String m = "this machine has " + gpus + " GPU(s); this test needs 3 or more (2 GPUs: DataParallelGpuTest): skipped";
            System.out.println(m);
            Assumptions.assumeTrue(false, m);
        }
        for (int n : counts) {
            int batch = 24 % n == 0 ? 24 : 3 * n;          // every rank gets a whole share of the global batch
            EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("cnn", new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11),
                    batch, 10, 3, 0.1f, 0.9f);
            float[] reference = EquivalenceCheck.singleRank(s, Device.cuda(0));
            Path out = Files.createDirectories(dir.resolve("n" + n));
            JobResult r = Mpj.launch(EquivalenceRank.class).ranks(n).device(MpjDevice.NIODEV)
                    .args("route=nccl", "device=cuda", "model=cnn", "examples=192", "batch=" + batch, "steps=10", "seed=3",
                            "cuda-graphs=true", "bucket-bytes=2048", "out=" + out)
                    .onLine(System.out::println).timeout(Duration.ofSeconds(240)).run();
            assertTrue(r.succeeded(), r.toString());
            float[] rank0 = EquivalenceRank.read(out.resolve("rank-0.f32"));
            for (int rank = 0; rank < n; rank++) {
                float[] p = EquivalenceRank.read(out.resolve("rank-" + rank + ".f32"));
                double d = EquivalenceCheck.relativeDifference(p, reference);
                System.out.printf("nccl, cnn, %d GPUs with batch %d each: rank %d vs one GPU with batch %d: max relative difference %.2e%n",
                        n, batch / n, rank, batch, d);
                assertTrue(d < 1e-4, n + " GPUs, rank " + rank + ": " + d);
                assertEquals(0, EquivalenceCheck.differingElements(p, rank0), "rank " + rank + " holds rank 0's parameters");
            }
        }
    }
}
