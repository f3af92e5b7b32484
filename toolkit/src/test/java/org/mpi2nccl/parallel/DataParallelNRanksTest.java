package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mpi2nccl.comm.ThreadRanks;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.tensor.Device;

/**
 * Data parallelism at the GPU counts of a classroom lab (1 to 8), on CPU thread ranks talking through the ring: N ranks
 * with batch 24/N each end 10 steps with the same parameters as one rank with the whole batch of 24, bit for bit the
 * same on every rank. 3 ranks check a count that is not a power of two (the ring's segments are then uneven). The
 * same on GPUs, through NCCL on all of the machine's GPUs, is {@link DataParallelAllGpusTest}.
 */
class DataParallelNRanksTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11);

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void nRanksWithBatch24OverNMatchOneRankWithTheWholeBatch(int ranks) {
        for (String model : List.of("mlp", "cnn")) {
            // small buckets: several all-reduces per step, launched while backward still runs
            DataParallel.Options options = DataParallel.Options.defaults().bucketBytes(model.equals("cnn") ? 256 : 1024);
            EquivalenceCheck.Setup s = new EquivalenceCheck.Setup(model, DATA, 24, 10, 3, 0.1f, 0.9f);
            float[] reference = EquivalenceCheck.singleRank(s, Device.cpu());
            float[] start = EquivalenceCheck.flatParameters(EquivalenceCheck.model(model, DATA, Device.cpu(), s.seed()));
            assertTrue(EquivalenceCheck.relativeDifference(reference, start) > 1e-2, "the 10 steps moved the weights");
            List<Object> got = ThreadRanks.runAll(ranks, b -> b.timeout(Duration.ofSeconds(30)), Duration.ofSeconds(60),
                    c -> EquivalenceCheck.dataParallel(s, c, Device.cpu(), options));
            for (int r = 0; r < ranks; r++) {
                if (got.get(r) instanceof Throwable t) throw new AssertionError(model + ", rank " + r + " of " + ranks + " failed: " + t, t);
                float[] p = (float[]) got.get(r);
                double d = EquivalenceCheck.relativeDifference(p, reference);
                System.out.printf("%s, %d ranks with batch %d each: rank %d vs one rank with batch 24: max relative difference %.2e%n",
                        model, ranks, 24 / ranks, r, d);
                assertTrue(d < 2e-5, model + " on " + ranks + " ranks, rank " + r + ": relative difference " + d);
                assertEquals(0, EquivalenceCheck.differingElements(p, (float[]) got.get(0)), "rank " + r + " holds rank 0's bits");
            }
        }
    }
}
