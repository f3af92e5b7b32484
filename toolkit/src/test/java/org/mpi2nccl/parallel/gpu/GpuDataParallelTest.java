package org.mpi2nccl.parallel.gpu;

import org.mpi2nccl.parallel.StepListener;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.parallel.timing.TimeBreakdown;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;

/**
 * What {@link GpuDataParallel} adds that also applies on CPU ranks (threads talking through the hand-written ring):
 * the small last bucket, the timing of every step; and that it trains exactly as the plain step. Its GPU parts run
 * in DataParallelGpuTest, StepGraphsGpuTest and StepWorkCountGpuTest.
 */
class GpuDataParallelTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11);

    /**
     * The lesson CNN's buckets: with lastBucketBytes the first layers (conv1, bn1: backward finishes them last) get the
     * last bucket to themselves, the other buckets planned as without it; a limit smaller than the first parameter, or
     * larger than the whole model, leaves the default plan.
     */
    @Test
    void aSmallLastBucketHoldsTheFirstLayersAlone() {
        long[][] plans = LocalRanks.run(1, b -> {}, c -> {
            try (Module net = Models.cnn(1, 28, 32, 64, Device.cpu(), 1)) {
                List<Tensor> p = net.parameters();
                long firstLayers = p.get(0).size() + p.get(1).size() + p.get(2).size();      // conv1 weight, bn1 weight and bias
                assertEquals(32 * 9 + 32 + 32, firstLayers, "the lesson CNN starts with conv1 (no bias) and bn1");
                long[][] out = new long[4][];
                long[] limits = {0, (firstLayers + 10) * 4, p.get(0).size() * 4 - 4, net.parameterCount() * 4};
                for (int i = 0; i < limits.length; i++) {
                    try (GpuDataParallel dp = new GpuDataParallel(net, c, DataParallel.Options.defaults(),
                            GpuOptions.defaults().lastBucketBytes(limits[i]))) {
                        out[i] = dp.bucketElements();
                        assertEquals(net.parameterCount(), Arrays.stream(out[i]).sum(), "every parameter in one bucket");
                    }
                }
                return out;
            }
        }).get(0);
        long[] plain = plans[0], small = plans[1];
        System.out.println("lesson CNN buckets: " + Arrays.toString(plain) + "; with a small last bucket: " + Arrays.toString(small));
        assertEquals(plain.length + 1, small.length, "one bucket more");
        assertEquals(32 * 9 + 32 + 32, small[small.length - 1], "the last bucket holds conv1 and bn1 only");
        assertEquals(plain[plain.length - 1], small[small.length - 2] + small[small.length - 1], "split off the old last bucket");
        for (int i = 0; i < plain.length - 1; i++) assertEquals(plain[i], small[i], "bucket " + i + " unchanged");
        assertTrue(Arrays.equals(plain, plans[2]), "a limit below conv1's weight: the default plan");
        assertTrue(Arrays.equals(plain, plans[3]), "a limit holding the whole model: the default plan");
    }

    /** Small buckets and a small last bucket on 2 ranks: the parameters of one rank trained on the whole batch. */
    @Test
    void trainsAsOneRankWithTheWholeBatch() {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("cnn", DATA, 24, 10, 3, 0.1f, 0.9f);
        float[] reference = EquivalenceCheck.singleRank(s, Device.cpu());
        List<float[]> got = LocalRanks.run(2, b -> {}, c -> {
            try (Module net = EquivalenceCheck.rankModel(s, Device.cpu(), c.rank());
                 GpuDataParallel dp = new GpuDataParallel(net, c, DataParallel.Options.defaults().bucketBytes(256),
                         GpuOptions.defaults().lastBucketBytes(128))) {
                return EquivalenceCheck.train(s, dp);
            }
        });
        for (int r = 0; r < 2; r++) {
            double d = EquivalenceCheck.relativeDifference(got.get(r), reference);
            assertTrue(d < 2e-5, "rank " + r + ": relative difference " + d);
            assertEquals(0, EquivalenceCheck.differingElements(got.get(r), got.get(0)), "every rank holds the same bits as rank 0");
        }
    }

    /**
     * Every step is timed: the steps, one all-reduce per bucket and step, the bytes; no graphs on a CPU. Another
     * listener is told beside the timer.
     */
    @Test
    void timesEveryStepAndCountsTheAllReduces() {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("cnn", DATA, 24, 6, 3, 0.1f, 0.9f);
        List<String> failures = LocalRanks.run(2, b -> {}, c -> {
            try (Module net = EquivalenceCheck.rankModel(s, Device.cpu(), c.rank());
                 GpuDataParallel dp = new GpuDataParallel(net, c, DataParallel.Options.defaults().bucketBytes(256),
                         GpuOptions.defaults().cudaGraphs(true))) {
                EquivalenceCheck.train(s, dp);
                TimeBreakdown t = dp.times();
                assertEquals(6, t.steps(), t.toString());
                assertEquals(6L * dp.bucketCount(), t.collectives(), "one all-reduce per bucket and step");
                assertEquals(6L * dp.gradientBytes(), t.bytesReduced());
                assertTrue(t.forwardNanos() > 0 && t.backwardNanos() > 0 && t.collectiveNanos() > 0, t.toString());
                assertEquals(0, dp.graphReplays(), "no CUDA graphs on the CPU");
                assertNull(dp.graphsOff(), "nothing to say on the CPU: graphs are for GPUs");
                int[] told = new int[1];
                dp.listen(new StepListener() {
                    @Override
                    public void optimizerDone() {
                        told[0]++;
                    }
                });
                EquivalenceCheck.train(s, dp);
                assertEquals(6, told[0], "a listener beside the timer is told of every step");
                assertEquals(12, dp.times().steps(), "and the timer still times them");
                assertThrows(IllegalArgumentException.class, () -> dp.listen(null));
                return "";
            }
        });
        assertEquals(List.of("", ""), failures);
    }
}
