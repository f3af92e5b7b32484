package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.ring.RingCommunicator;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * The equivalence of N ranks with batch B/N and one rank with batch B, with the ranks as threads of this JVM
 * talking through the hand-written ring (fast; the same check on MPJ ranks through MPI is
 * {@link DataParallelMpjTest}).
 */
class DataParallelThreadsTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11);

    static <T> List<T> onRanks(int n, Function<Communicator, T> body) {
        List<RingCommunicator> comms = RingCommunicator.threads(n, b -> {});
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<T>> fs = new ArrayList<>();
            for (RingCommunicator c : comms) fs.add(pool.submit(() -> body.apply(c)));
            List<T> out = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                try {
                    out.add(fs.get(r).get(120, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    throw new AssertionError("rank " + r + " failed: " + e.getCause(), e.getCause());
                }
            }
            return out;
        } catch (java.util.concurrent.TimeoutException | InterruptedException e) {
            throw new AssertionError("a rank did not finish within 120 s", e);
        } finally {
            pool.shutdownNow();
            comms.forEach(RingCommunicator::close);
        }
    }

    private static void checkEquivalent(String model, int ranks, DataParallel.Options options) {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup(model, DATA, 24, 10, 3, 0.1f, 0.9f);
        float[] reference = EquivalenceCheck.singleRank(s, Device.cpu());
        List<float[]> got = onRanks(ranks, c -> EquivalenceCheck.dataParallel(s, c, Device.cpu(), options));
        float[] start = EquivalenceCheck.flatParameters(EquivalenceCheck.model(model, DATA, Device.cpu(), s.seed()));
        assertTrue(EquivalenceCheck.relativeDifference(reference, start) > 1e-2, "the 10 steps moved the weights");
        for (int r = 0; r < ranks; r++) {
            double d = EquivalenceCheck.relativeDifference(got.get(r), reference);
            System.out.printf("%s, %d ranks, %s: rank %d vs one rank with the whole batch: max relative difference %.2e%n",
                    model, ranks, options, r, d);
            assertTrue(d < 2e-5, model + " on " + ranks + " ranks, rank " + r + ": relative difference " + d);
            assertEquals(0, EquivalenceCheck.differingElements(got.get(r), got.get(0)), "every rank holds the same bits as rank 0");
        }
    }

    /**
     * A rank that comes late to an epoch (here it sleeps 1.5 s first) does not make the others' epoch look 1.5 s
     * longer: the ranks start the epoch's clock together, so it is not counted as their training time.
     */
    @Test
    void aRankLateToTheEpochIsNotCountedInTheOthersEpochTime() {
        List<Double> seconds = onRanks(2, c -> {
            try (org.mpi2nccl.nn.Module model = EquivalenceCheck.model("mlp", DATA, Device.cpu(), 3);
                 DataParallel dp = new DataParallel(model, c);
                 org.mpi2nccl.optim.SGD opt = new org.mpi2nccl.optim.SGD(model.parameters(), 0.1f)) {
                org.mpi2nccl.data.DataLoader loader = new org.mpi2nccl.data.DataLoader(DATA, 16,
                        DistributedSampler.training(DATA.size(), c.rank(), c.size(), 1), false, Device.cpu());
                if (c.rank() == 1) {
                    try {
                        Thread.sleep(1500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return DistributedTraining.trainEpoch(dp, loader, 0, opt, new org.mpi2nccl.nn.SoftmaxCrossEntropyLoss(), null).seconds();
            }
        });
        System.out.printf("epoch seconds with rank 1 late by 1.5 s: rank 0 %.3f, rank 1 %.3f%n", seconds.get(0), seconds.get(1));
        assertTrue(seconds.get(0) < 1.0, "rank 0's epoch counted rank 1's lateness: " + seconds.get(0) + " s");
    }

    /**
     * Evaluation's batch-norm statistics ({@link DataParallel#averageBuffers}): averaged over the ranks; on one rank left
     * as they are without a collective call (a 1-rank NCCL communicator's average slowed the GPU's kernels).
     */
    @Test
    void buffersAreAveragedOverTheRanksAndOneRankMakesNoCall() {
        List<float[]> got = onRanks(2, c -> {
            try (org.mpi2nccl.nn.Module model = EquivalenceCheck.model("cnn-bn", DATA, Device.cpu(), 3);
                 DataParallel dp = new DataParallel(model, c)) {
                for (NDArray b : model.namedBuffers().values()) b.fill(c.rank() == 0 ? 1f : 2f);
                dp.averageBuffers();
                return buffers(model);
            }
        });
        assertTrue(got.get(0).length > 0, "the model has batch-norm statistics");
        for (float[] rank : got) for (float v : rank) assertEquals(1.5f, v, "the mean of rank 0's 1 and rank 1's 2");

        RingCommunicator one = RingCommunicator.threads(1, b -> {}).get(0);
        int[] allReduces = {0};
        Communicator counted = (Communicator) Proxy.newProxyInstance(Communicator.class.getClassLoader(),
                new Class<?>[] {Communicator.class}, (proxy, method, args) -> {
                    if (method.getName().equals("allReduce")) allReduces[0]++;
                    try {
                        return method.invoke(one, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        try (org.mpi2nccl.nn.Module model = EquivalenceCheck.model("cnn-bn", DATA, Device.cpu(), 3);
             DataParallel dp = new DataParallel(model, counted)) {
            for (NDArray b : model.namedBuffers().values()) b.fill(7f);
            int before = allReduces[0];
            dp.averageBuffers();
            assertEquals(before, allReduces[0], "one rank: no all-reduce");
            for (float v : buffers(model)) assertEquals(7f, v, "one rank: the statistics are left as they are");
        } finally {
            one.close();
        }
    }

    private static float[] buffers(org.mpi2nccl.nn.Module model) {
        List<Float> out = new ArrayList<>();
        for (NDArray b : model.namedBuffers().values()) for (float v : b.toArray()) out.add(v);
        float[] a = new float[out.size()];
        for (int i = 0; i < a.length; i++) a[i] = out.get(i);
        return a;
    }

    @Test
    void mlpOnOneToFourRanksMatchesOneRankWithTheWholeBatch() {
        for (int n = 1; n <= 4; n++) {
            checkEquivalent("mlp", n, DataParallel.Options.defaults());
        }
    }

    @Test
    void cnnWithManySmallBucketsAndWithoutOverlap() {
        checkEquivalent("cnn", 2, DataParallel.Options.defaults().bucketBytes(64));
        checkEquivalent("cnn", 4, DataParallel.Options.defaults().overlap(false));
    }

    @Test
    void localBatchNormIsNotEquivalentAndSaysSo() {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("cnn-bn", DATA, 24, 10, 3, 0.1f, 0.9f);
        float[] reference = EquivalenceCheck.singleRank(s, Device.cpu());
        List<float[]> got = onRanks(2, c -> EquivalenceCheck.dataParallel(s, c, Device.cpu(), DataParallel.Options.defaults()));
        double d = EquivalenceCheck.relativeDifference(got.get(0), reference);
        System.out.printf("cnn-bn on 2 ranks: relative difference %.2e (batch-norm statistics are per rank)%n", d);
        assertTrue(d > 1e-4, "local batch norm normalises with each rank's half batch: not the single rank's statistics");
        assertEquals(0, EquivalenceCheck.differingElements(got.get(0), got.get(1)), "the ranks still agree with each other");
    }

    @Test
    void smallBucketsMeanSeveralAllReducesPerStep() {
        List<String> out = onRanks(2, c -> {
            EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("cnn", DATA, 24, 3, 3, 0.1f, 0.9f);
            try (var net = EquivalenceCheck.model("cnn", DATA, Device.cpu(), 1);
                 DataParallel dp = new DataParallel(net, c, DataParallel.Options.defaults().bucketBytes(256))) {
                assertEquals(net.parameterCount() * 4, dp.gradientBytes());
                assertTrue(dp.bucketCount() >= 3, "small buckets: several all-reduces per step, got " + dp.bucketCount());
                return dp.toString() + " " + s.steps();
            }
        });
        assertEquals(2, out.size());
    }
}
