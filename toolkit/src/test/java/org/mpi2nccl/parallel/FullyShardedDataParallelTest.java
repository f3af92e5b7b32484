package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.nn.BatchNorm2d;
import org.mpi2nccl.nn.Flatten;
import org.mpi2nccl.nn.Linear;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.ReLU;
import org.mpi2nccl.nn.Sequential;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Adam;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.Rng;

/**
 * ZeRO stage 3 ({@link FullyShardedDataParallel}) against one rank training the whole batch: the same steps on 1 to 4
 * thread ranks give the same parameters, up to float rounding. The two units (36 x 32 linear with ReLU: 1184
 * parameters; 32 x 5 linear: 165) have counts that 3, and 2 and 4, do not divide, so every run pads some unit.
 */
class FullyShardedDataParallelTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11);
    private static final int BATCH = 24;
    private static final int STEPS = 6;

    /** The model's two units, their weights drawn from {@code seed}. */
    static List<Supplier<Module>> units(long seed) {
        Device cpu = Device.cpu();
        return List.of(() -> new Sequential(new Flatten(), new Linear(36, 32, cpu, new Rng(seed)), new ReLU()),
                () -> new Linear(32, 5, cpu, new Rng(seed + 1)));
    }

    private static DataLoader loader(int rank, int size) {
        DistributedSampler sampler = new DistributedSampler(DATA.size(), rank, size, 5, true, DistributedSampler.Tail.DROP);
        return new DataLoader(DATA, BATCH / size, sampler, true, Device.cpu());
    }

    /** This rank's parameters after {@link #STEPS} sharded steps; rank r's factories draw from seed 40 + r. */
    private static float[] trainSharded(Communicator c, Function<List<Tensor>, Optimizer> make, long[] peak) {
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        try (FullyShardedDataParallel fsdp = new FullyShardedDataParallel(units(40 + c.rank()), c, make)) {
            int done = 0;
            for (Batch b : loader(c.rank(), c.size()).epoch(0)) {
                try (ArrayScope step = ArrayScope.open(); b) {
                    if (done++ >= STEPS) continue;
                    lossFn.forward(fsdp.forward(Tensor.constant(b.x())), b.y()).backward();
                    fsdp.backward();
                    fsdp.step();
                    assertEquals(0, fsdp.liveGatheredBytes(), "no unit's full parameters outlive its forward or backward");
                }
            }
            peak[c.rank()] = fsdp.peakGatheredBytes();
            return fsdp.fullParameters();
        }
    }

    /** One rank, the whole batch, the plain optimizer over the model built from rank 0's factories. */
    private static float[] reference(Function<List<Tensor>, Optimizer> make) {
        List<Supplier<Module>> u = units(40);
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        try (Module net = new Sequential(u.get(0).get(), u.get(1).get()); Optimizer opt = make.apply(net.parameters())) {
            int done = 0;
            for (Batch b : loader(0, 1).epoch(0)) {
                try (ArrayScope step = ArrayScope.open(); b) {
                    if (done++ >= STEPS) continue;
                    opt.zeroGrad();
                    lossFn.forward(net.forward(Tensor.constant(b.x())), b.y()).backward();
                    opt.step();
                }
            }
            return EquivalenceCheck.flatParameters(net);
        }
    }

    private static void checkEquivalent(int ranks, String name, Function<List<Tensor>, Optimizer> make) {
        long[] peak = new long[ranks];
        List<float[]> sharded = DataParallelThreadsTest.onRanks(ranks, c -> trainSharded(c, make, peak));
        float[] want = reference(make);
        float[] start;
        try (Module m = new Sequential(units(40).get(0).get(), units(40).get(1).get())) {
            start = EquivalenceCheck.flatParameters(m);
        }
        assertTrue(EquivalenceCheck.relativeDifference(want, start) > 1e-2, "the steps moved the weights");
        for (int r = 0; r < ranks; r++) {
            double d = EquivalenceCheck.relativeDifference(sharded.get(r), want);
            assertTrue(d < 2e-5, name + " on " + ranks + " ranks, rank " + r + ": relative difference " + d);
            assertEquals(4L * 1184, peak[r], "the largest unit's parameters, one unit at a time");
        }
    }

    @Test
    void sgdWithMomentumOnOneToFourRanksMatchesOneRankWithTheWholeBatch() {
        for (int n = 1; n <= 4; n++) checkEquivalent(n, "SGD with momentum", ps -> new SGD(ps, 0.1f, 0.9f, 0f));
    }

    @Test
    void adamOnThreeRanksMatchesOneRankWithTheWholeBatch() {
        checkEquivalent(3, "Adam", ps -> new Adam(ps, 0.01f));
    }

    @Test
    void eachRankKeepsOnePaddedSliceOfEveryUnitAndStateForItOnly() {
        List<long[]> kept = DataParallelThreadsTest.onRanks(3, c -> {
            try (FullyShardedDataParallel fsdp = new FullyShardedDataParallel(units(40), c,
                    ps -> new SGD(ps, 0.1f, 0.9f, 0f))) {
                long grads = 0;
                for (Tensor s : fsdp.shards()) grads += s.grad().size();
                return new long[] {fsdp.shardElements(), grads, fsdp.inner().stateElements(), fsdp.parameterCount()};
            }
        });
        for (long[] k : kept) {
            assertEquals(395 + 55, k[0], "ceil(1184 / 3) + ceil(165 / 3)");
            assertEquals(k[0], k[1], "a gradient for the slices only");
            assertEquals(k[0], k[2], "momentum for the slices only");
            assertEquals(1349, k[3]);
        }
    }

    @Test
    void aUnitWithoutParametersOrWithBuffersIsRefusedWithTheReason() {
        List<String> why = DataParallelThreadsTest.onRanks(1, c -> {
            String none = assertThrows(IllegalArgumentException.class,
                    () -> new FullyShardedDataParallel(List.of(ReLU::new), c, ps -> new SGD(ps, 0.1f))).getMessage();
            String buffers = assertThrows(IllegalArgumentException.class, () -> new FullyShardedDataParallel(
                    List.of(() -> new BatchNorm2d(4, Device.cpu())), c, ps -> new SGD(ps, 0.1f))).getMessage();
            return none + " | " + buffers;
        });
        assertTrue(why.get(0).contains("unit 0 has no parameters"), why.get(0));
        assertTrue(why.get(0).contains("has buffers"), why.get(0));
    }

    @Test
    void backwardBeforeForwardSaysWhatToCallFirst() {
        List<String> why = DataParallelThreadsTest.onRanks(1, c -> {
            try (FullyShardedDataParallel fsdp = new FullyShardedDataParallel(units(40), c, ps -> new SGD(ps, 0.1f))) {
                return assertThrows(IllegalStateException.class, fsdp::backward).getMessage();
            }
        });
        assertTrue(why.get(0).contains("call forward, then backward on the loss"), why.get(0));
    }
}
