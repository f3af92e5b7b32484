package org.mpi2nccl.lessons;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;

/**
 * The training loop every stage of lesson 03 plugs into: {@link Lesson03#STEPS} SGD steps of the lesson's model on
 * this rank's share of each batch. A stage may listen to backward (a gradient is ready) and acts after backward,
 * before the optimizer's step; that is where the ranks' gradients become one. The loop keeps what the checks need
 * to explain a wrong answer: the gradients of the first step before and after the stage, and the parameters at the end.
 */
final class Lesson03Training {
    private Lesson03Training() {
    }

    /** What a stage does in one step. */
    interface StepSync {
        /** Backward has finished {@code param}'s gradient (only when {@link #listens()}). */
        default void gradientReady(Tensor param) throws Exception {
        }

        /** Whether backward should tell {@link #gradientReady} about each gradient. */
        default boolean listens() {
            return false;
        }

        /** After backward, before the optimizer: the gradients must be the mean over the ranks when it returns. */
        void afterBackward() throws Exception;
    }

    /**
     * What a run left.
     *
     * @param params the parameters after the last step, in the model's order
     * @param early  the parameters after {@link Lesson03Grading#STEPS} steps: what a grader compares
     * @param local  step 1's gradients as backward left them on this rank (before the stage combined them)
     * @param synced step 1's gradients after the stage, the ones the optimizer used
     */
    record Run(float[] params, float[] early, float[][] local, float[][] synced) {}

    /** A stage that leaves the gradients as backward made them (one rank on the whole batch). */
    static final StepSync NOTHING = () -> { };

    /**
     * Trains {@code net} with this rank's shares ({@code shares.indices(step)}) and a new {@code StepSync} per step,
     * on the batches of {@code on}'s data, on its device. Throws what the stage threw.
     */
    static Run train(Lesson03.Setup on, Module net, java.util.function.IntFunction<int[]> shares, Supplier<StepSync> stage, Lesson03Meter meter)
            throws Exception {
        List<Tensor> params = net.parameters();
        Map<Tensor, Integer> index = new IdentityHashMap<>();
        for (int i = 0; i < params.size(); i++) index.put(params.get(i), i);
        float[][] local = new float[params.size()][], synced = new float[params.size()][];
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        float[] early = null;
        try (SGD opt = new SGD(params, Lesson03.LR, Lesson03.MOMENTUM, 0f)) {
            for (int step = 0; step < Lesson03.STEPS; step++) {
                boolean first = step == 0;
                try (ArrayScope scope = ArrayScope.open(); Batch b = Lesson03.batch(shares.apply(step), on.data(), on.device())) {
                    StepSync sync = stage.get();
                    opt.zeroGrad();
                    meter.stepStarts();
                    Tensor loss = lossFn.forward(net.forward(Tensor.constant(b.x())), b.y());
                    meter.backwardStarts();
                    if (first || sync.listens()) {
                        Exception[] failed = new Exception[1];
                        loss.backward(p -> {
                            Integer i = index.get(p);
                            if (first && i != null) local[i] = p.grad().toArray();   // before the stage touches it
                            if (failed[0] == null && sync.listens()) {
                                try {
                                    sync.gradientReady(p);
                                } catch (Exception e) {
                                    failed[0] = e;
                                }
                            }
                        });
                        if (failed[0] != null) throw failed[0];
                    } else {
                        loss.backward();
                    }
                    meter.backwardEnds();
                    sync.afterBackward();
                    meter.synced();
                    if (first) {
                        for (int i = 0; i < params.size(); i++) {
                            NDArray g = params.get(i).grad();
                            synced[i] = g == null || g.isClosed() ? new float[params.get(i).data().toArray().length] : g.toArray();
                        }
                    }
                    opt.step();
                    meter.stepEnds();
                }
                if (step == Lesson03Grading.STEPS - 1) early = EquivalenceCheck.flatParameters(net);
            }
        }
        return new Run(EquivalenceCheck.flatParameters(net), early, local, synced);
    }
}
