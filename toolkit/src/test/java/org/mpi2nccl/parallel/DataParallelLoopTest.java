package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Functions;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.nn.Flatten;
import org.mpi2nccl.nn.Linear;
import org.mpi2nccl.nn.Loss;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.ReLU;
import org.mpi2nccl.nn.Sequential;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.Rng;

/**
 * DataParallel used as PyTorch's DistributedDataParallel is: the caller's own loss (a lambda) and optimizer, the
 * gradients averaged in backward hooks and waited for with {@code finish()}. On a model whose hidden layer is used
 * twice (tied weights), 2 ranks with half batches end where one rank with the whole batch does, every rank with the
 * same bits, and the shared weight travels once per step.
 */
class DataParallelLoopTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(96, new int[] {1, 6, 6}, 5, 11);
    private static final int BATCH = 24, STEPS = 4;
    private static final Loss CROSS_ENTROPY = (out, labels) -> Functions.softmaxCrossEntropy(out, labels);

    /** A hidden layer used twice (tied); with {@code frozenFirst}, the first layer frozen as a pretrained one would be. */
    private static Module tiedModel(boolean frozenFirst) {
        Rng rng = new Rng(5);
        Linear first = new Linear(36, 36, Device.cpu(), rng);
        Linear hidden = new Linear(36, 36, Device.cpu(), rng);
        if (frozenFirst) first.requiresGrad(false);
        return new Sequential(new Flatten(), first, new ReLU(), hidden, new ReLU(), hidden,
                new ReLU(), new Linear(36, 5, Device.cpu(), rng));
    }

    private static float[] train(Communicator c) {
        return train(c, false);
    }

    /** STEPS steps of the caller's loop on this rank's share of each batch; the parameters at the end. */
    private static float[] train(Communicator c, boolean frozenFirst) {
        try (Module model = tiedModel(frozenFirst);
             DataParallel dp = new DataParallel(model, c, DataParallel.Options.defaults().bucketBytes(4096));
             SGD sgd = new SGD(model.trainableParameters(), 0.1f, 0.9f, 0f)) {
            long trainable = model.trainableParameters().stream().mapToLong(Tensor::size).sum();
            assertEquals(4L * trainable, dp.gradientBytes(), "the tied weight is reduced once, a frozen one not at all");
            assertEquals(frozenFirst ? model.parameterCount() - 36 * 36 - 36 : model.parameterCount(), trainable);
            int share = BATCH / c.size();
            for (int step = 0; step < STEPS; step++) {
                int[] mine = new int[share];
                for (int i = 0; i < share; i++) mine[i] = step * BATCH + c.rank() * share + i;
                try (ArrayScope scope = ArrayScope.open(); Batch b = Batch.of(DATA, mine, Device.cpu())) {
                    dp.zeroGrad(sgd);
                    Tensor loss = CROSS_ENTROPY.forward(dp.forward(Tensor.constant(b.x())), b.y());
                    dp.backward(loss);
                    dp.finish();
                    sgd.step();
                }
            }
            return EquivalenceCheck.flatParameters(model);
        }
    }

    @Test
    void theCallersLoopOnTwoRanksEndsWhereOneRankWithTheWholeBatchDoes() {
        float[] one = DataParallelThreadsTest.onRanks(1, DataParallelLoopTest::train).get(0);
        List<float[]> two = DataParallelThreadsTest.onRanks(2, DataParallelLoopTest::train);
        float[] start;
        try (Module m = tiedModel(false)) {
            start = EquivalenceCheck.flatParameters(m);
        }
        assertTrue(EquivalenceCheck.relativeDifference(one, start) > 1e-3, "the steps moved the weights");
        double d = EquivalenceCheck.relativeDifference(two.get(0), one);
        System.out.printf("caller's loop, tied model: 2 ranks vs one rank with the whole batch: max relative difference %.2e%n", d);
        assertTrue(d < 2e-5, "relative difference " + d);
        assertEquals(0, EquivalenceCheck.differingElements(two.get(1), two.get(0)), "both ranks hold the same bits");
    }

    @Test
    void aFrozenLayerIsNeverReducedNorMovedAndTheRestTrainsAsOnOneRank() {
        float[] one = DataParallelThreadsTest.onRanks(1, c -> train(c, true)).get(0);
        List<float[]> two = DataParallelThreadsTest.onRanks(2, c -> train(c, true));
        float[] start;
        try (Module m = tiedModel(true)) {
            start = EquivalenceCheck.flatParameters(m);
        }
        int frozen = 36 * 36 + 36;      // the first Linear's weight and bias come first in the flat parameters
        for (float[] end : List.of(one, two.get(0), two.get(1))) {
            assertArrayEquals(java.util.Arrays.copyOf(start, frozen), java.util.Arrays.copyOf(end, frozen),
                    "the frozen layer keeps its initial values");
        }
        assertTrue(EquivalenceCheck.relativeDifference(one, start) > 1e-3, "the other layers moved");
        double d = EquivalenceCheck.relativeDifference(two.get(0), one);
        assertTrue(d < 2e-5, "2 ranks vs one rank with the whole batch, relative difference " + d);
        assertEquals(0, EquivalenceCheck.differingElements(two.get(1), two.get(0)), "both ranks hold the same bits");
    }

    @Test
    void aModelWithEveryParameterFrozenIsRefusedWithWhatToDo() {
        List<String> said = DataParallelThreadsTest.onRanks(1, c -> {
            try (Module model = tiedModel(false)) {
                model.requiresGrad(false);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new DataParallel(model, c));
                return e.getMessage();
            }
        });
        assertTrue(said.get(0).contains("frozen") && said.get(0).contains("requiresGrad(true)"), said.get(0));
    }

    @Test
    void onlyALeafCanBeFrozen() {
        Tensor p = Tensor.parameter(org.mpi2nccl.tensor.NDArray.ones(Device.cpu(), 3));
        Tensor y = p.mul(p);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> y.requiresGrad(false));
        assertTrue(e.getMessage().contains("only a leaf"), e.getMessage());
        assertFalse(p.requiresGrad(false).requiresGrad());
    }
}
