package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Adam;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;

/**
 * ZeRO stage 1 ({@link ShardedOptimizer}) against plain data parallelism ({@link DataParallel}): the same steps on
 * 1 to 4 thread ranks leave the same parameters on every rank, up to float rounding. The mlp on 6x6 examples with 5
 * classes has 1349 parameters, a number that 2, 3 and 4 do not divide, so the padded tail is exercised.
 */
class ShardedOptimizerTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11);
    private static final int BATCH = 24;
    private static final int STEPS = 8;

    private static Function<List<Tensor>, Optimizer> sgd() {
        return ps -> new SGD(ps, 0.1f, 0.9f, 0f);
    }

    private static Function<List<Tensor>, Optimizer> adam() {
        return ps -> new Adam(ps, 0.01f);
    }

    /** This rank's parameters after {@link #STEPS} steps, sharded or plain; each rank starts from weights of its own. */
    private static float[] train(Communicator c, Function<List<Tensor>, Optimizer> make, boolean sharded) {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("mlp", DATA, BATCH, STEPS, 3, 0.1f, 0.9f);
        DistributedSampler sampler = new DistributedSampler(DATA.size(), c.rank(), c.size(), s.seed(), true,
                DistributedSampler.Tail.DROP);
        DataLoader loader = new DataLoader(DATA, BATCH / c.size(), sampler, true, Device.cpu());
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        try (Module net = EquivalenceCheck.rankModel(s, Device.cpu(), c.rank())) {
            if (sharded) {
                try (ShardedOptimizer opt = new ShardedOptimizer(net.parameters(), c, make)) {
                    int done = 0;
                    for (Batch b : loader.epoch(0)) {
                        try (ArrayScope step = ArrayScope.open(); b) {
                            if (done++ >= STEPS) continue;
                            opt.zeroGrad();
                            lossFn.forward(net.forward(Tensor.constant(b.x())), b.y()).backward();
                            opt.step();
                        }
                    }
                }
            } else {
                try (DataParallel dp = new DataParallel(net, c); Optimizer opt = make.apply(net.parameters())) {
                    int done = 0;
                    for (Batch b : loader.epoch(0)) {
                        try (ArrayScope step = ArrayScope.open(); b) {
                            if (done++ >= STEPS) continue;
                            dp.step(b, opt, lossFn);
                        }
                    }
                }
            }
            return EquivalenceCheck.flatParameters(net);
        }
    }

    private static void checkEquivalent(int ranks, String name, Function<List<Tensor>, Optimizer> make) {
        List<float[]> plain = DataParallelThreadsTest.onRanks(ranks, c -> train(c, make, false));
        List<float[]> sharded = DataParallelThreadsTest.onRanks(ranks, c -> train(c, make, true));
        float[] start = EquivalenceCheck.flatParameters(EquivalenceCheck.model("mlp", DATA, Device.cpu(), 3));
        assertEquals(1349, start.length, "a parameter count that 2, 3 and 4 do not divide");
        assertTrue(EquivalenceCheck.relativeDifference(plain.get(0), start) > 1e-2, "the steps moved the weights");
        for (int r = 0; r < ranks; r++) {
            double d = EquivalenceCheck.relativeDifference(sharded.get(r), plain.get(r));
            System.out.printf("%s, %d ranks: rank %d sharded vs plain data parallel: max relative difference %.2e%n", name, ranks, r, d);
            assertTrue(d < 2e-5, name + " on " + ranks + " ranks, rank " + r + ": relative difference " + d);
            assertEquals(0, EquivalenceCheck.differingElements(sharded.get(r), sharded.get(0)), "every rank holds rank 0's bits");
        }
    }

    @Test
    void sgdWithMomentumOnOneToFourRanksMatchesPlainDataParallel() {
        for (int n = 1; n <= 4; n++) checkEquivalent(n, "SGD with momentum", sgd());
    }

    @Test
    void adamOnThreeRanksMatchesPlainDataParallel() {
        checkEquivalent(3, "Adam", adam());
    }

    @Test
    void eachRankOwnsOneSliceAndTheSlicesCoverTheModelOnce() {
        List<long[]> slices = DataParallelThreadsTest.onRanks(4, c -> {
            try (Module net = EquivalenceCheck.model("mlp", DATA, Device.cpu(), 3);
                 ShardedOptimizer opt = new ShardedOptimizer(net.parameters(), c, sgd())) {
                return new long[] {opt.shardStart(), opt.shardElements(), opt.padding(), opt.parameterCount()};
            }
        });
        for (int r = 0; r < 4; r++) {
            assertEquals(338, slices.get(r)[1], "ceil(1349 / 4)");
            assertEquals(338L * r, slices.get(r)[0], "rank " + r + "'s slice starts after the previous ones");
            assertEquals(3, slices.get(r)[2], "4 x 338 - 1349 zeros of padding");
            assertEquals(1349, slices.get(r)[3]);
        }
    }
}
