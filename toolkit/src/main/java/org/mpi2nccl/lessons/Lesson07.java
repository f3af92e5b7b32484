package org.mpi2nccl.lessons;

import java.util.Locale;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.nccl.NcclNatives;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.DistributedSampler;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Adam;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Lesson 07, sharding the optimizer (ZeRO stage 1): the lesson's model and its training on flat arrays, the plain
 * data-parallel step the check compares with, and the check of the exercise (the sharded step: reduce-scatter the
 * gradients, update this rank's slice with its slice of the momentum, all-gather the parameters); for the library
 * part, each rank's device (its GPU when there is one per rank) and the plain data-parallel Adam run that
 * {@link org.mpi2nccl.parallel.ShardedOptimizer} is compared with. The memory chart and the communication volume live in
 * {@link Lesson07Costs}; the check's probe in {@link Lesson07Probe}. The check trains on the CPU in the notebook; its
 * overload with a device trains the model there (one GPU, one rank), the flat arrays the step sees staying on the host.
 */
public final class Lesson07 {
    /** The single rank's batch: each of N ranks takes BATCH / N (N = 1, 2, 3, 4, 6 or 8). */
    public static final int BATCH = 24;
    public static final int STEPS = 10;
    public static final float LR = 0.1f;
    public static final float MOMENTUM = 0.9f;
    private static final long SEED = 7;
    /** 192 random 6x6 examples of 5 classes: a small set that a model can learn (see SyntheticDataset). */
    public static final SyntheticDataset DATA = new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11);

    private Lesson07() {
    }

    /**
     * One optimizer step on flat arrays: {@code params} is the whole model (the same on every rank) and must hold the
     * updated model afterwards; {@code grads} is this rank's own gradient; {@code velocity} is the momentum this rank
     * keeps between steps.
     */
    @FunctionalInterface
    public interface FlatStep {
        void step(float[] params, float[] grads, float[] velocity);
    }

    /** The lesson's model: flatten, 36 x 32 linear, ReLU, 32 x 5 linear (1349 parameters), weights from {@code seed}. */
    public static Module model(Device device, long seed) {
        return EquivalenceCheck.model("mlp", DATA, device, seed);
    }

    /** Number of parameters of the lesson's model: 1349, which 2, 3 and 4 do not divide. */
    public static int parameterCount() {
        try (Module m = model(Device.cpu(), SEED)) {
            return Math.toIntExact(m.parameterCount());
        }
    }

    /** This rank's loader: its share of every batch (BATCH / size examples), shuffled the same way on every rank. */
    public static DataLoader loader(int rank, int size, Device device) {
        if (BATCH % size != 0) throw new IllegalArgumentException("use a number of ranks that divides " + BATCH);
        DistributedSampler sampler = new DistributedSampler(DATA.size(), rank, size, SEED, true, DistributedSampler.Tail.DROP);
        return new DataLoader(DATA, BATCH / size, sampler, true, device);
    }

    /**
     * {@link #STEPS} steps of the lesson's model on this rank's share of the data: forward, backward, then
     * {@code step} on the flat parameters and gradients, whose result is written back into the model. Every rank
     * starts from the same weights (one random seed). {@code stateLength}: the floats of {@code velocity} this rank keeps.
     * Returns the parameters after.
     */
    public static float[] train(int rank, int size, int stateLength, FlatStep step) {
        return train(rank, size, stateLength, step, Device.cpu());
    }

    /** The same steps with the model, its batches and gradients on {@code device}; the flat arrays stay on the host. */
    public static float[] train(int rank, int size, int stateLength, FlatStep step, Device device) {
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        DataLoader loader = loader(rank, size, device);
        try (Module net = model(device, SEED)) {
            float[] params = EquivalenceCheck.flatParameters(net);
            float[] velocity = new float[stateLength];
            int done = 0;
            for (int epoch = 0; done < STEPS; epoch++) {
                for (Batch b : loader.epoch(epoch)) {
                    try (ArrayScope scope = ArrayScope.open(); b) {
                        if (done >= STEPS) continue;
                        net.zeroGrad();
                        lossFn.forward(net.forward(Tensor.constant(b.x())), b.y()).backward();
                        step.step(params, flatGradients(net), velocity);
                        setParameters(net, params);
                        done++;
                    }
                }
            }
            return params;
        }
    }

    /** Every parameter's gradient, in the model's order, one flat array. */
    public static float[] flatGradients(Module net) {
        float[] out = new float[Math.toIntExact(net.parameterCount())];
        int at = 0;
        for (Tensor p : net.parameters()) {
            float[] g = p.grad() == null ? new float[(int) p.size()] : p.grad().toArray();
            System.arraycopy(g, 0, out, at, g.length);
            at += g.length;
        }
        return out;
    }

    /** Writes the flat {@code values} into the model's parameters, in the model's order, on their device. */
    public static void setParameters(Module net, float[] values) {
        int at = 0;
        for (Tensor p : net.parameters()) {
            int n = (int) p.size();
            float[] v = java.util.Arrays.copyOfRange(values, at, at + n);
            try (NDArray a = NDArray.of(p.data().device(), v, p.shape())) {
                p.data().assign(a);
            }
            at += n;
        }
    }

    /**
     * Plain data parallelism on flat arrays (lesson 03's step): average the whole gradient with one all-reduce, then
     * every rank updates the whole model with momentum for every parameter ({@code velocity} holds all of them).
     */
    public static FlatStep plainStep(Communicator comm) {
        return (params, grads, velocity) -> {
            float[] avg = grads.clone();
            comm.allReduce(HostBuffer.of(avg), Reduction.AVG);
            for (int i = 0; i < params.length; i++) {
                velocity[i] = MOMENTUM * velocity[i] + avg[i];
                params[i] -= LR * velocity[i];
            }
        };
    }

    /**
     * Where rank {@code rank} trains in the library part of the lesson: its own GPU when this machine has one per rank
     * (NCCL cannot put two ranks of one communicator on the same GPU), else the CPU.
     */
    public static Device device(int rank, int size) {
        return NcclNatives.gpuCount() >= size ? Device.cuda(rank) : Device.cpu();
    }

    /** One line on where the library part runs on this machine. */
    public static String deviceStatus(int size) {
        int gpus = NcclNatives.gpuCount();
        if (gpus >= size) return gpus + " GPU(s): each rank trains on its own GPU and the ranks talk through NCCL.";
        return (gpus == 0 ? "no GPU (" + NcclNatives.whyNoGpu() + ")" : "only " + gpus + " GPU(s) for " + size + " ranks")
                + ": the ranks train on the CPU and talk through the ring over MPJ. With one GPU per rank the same cells"
                + " run on the GPUs through NCCL.";
    }

    /**
     * The library part's baseline: plain data parallelism ({@link DataParallel}, one all-reduce per step) with Adam at
     * rate {@code lr}, {@code epochs} epochs of the lesson's model on {@code device}; rank r starts from seed
     * {@code seed + r} and DataParallel broadcasts rank 0's weights. Returns the parameters after.
     */
    public static float[] trainPlainAdam(Communicator comm, Device device, long seed, int epochs, float lr) {
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        DataLoader loader = loader(comm.rank(), comm.size(), device);
        try (Module net = model(device, seed + comm.rank());
             DataParallel dp = new DataParallel(net, comm);
             Adam opt = new Adam(net.parameters(), lr)) {
            for (int epoch = 0; epoch < epochs; epoch++) {
                for (Batch b : loader.epoch(epoch)) {
                    try (ArrayScope step = ArrayScope.open(); b) {
                        dp.step(b, opt, lossFn);
                    }
                }
            }
            return EquivalenceCheck.flatParameters(net);
        }
    }

    /** The floats of momentum each rank keeps in the sharded step: ceil(n / size). */
    public static int shardLength(int n, int size) {
        return (n + size - 1) / size;
    }

    /**
     * Checks the exercise on every rank (a {@code %%mpj} cell; collective): first a two-step probe on small arrays
     * whose answer this check computes itself (it explains a wrong answer), then {@link #STEPS} training steps of the
     * lesson's model with {@code sharded}, compared with the same steps of {@link #plainStep} over {@code comm}.
     */
    public static Check checkShardedStep(int rank, int size, Communicator comm, FlatStep sharded) {
        return checkShardedStep(rank, size, comm, sharded, Device.cpu());
    }

    /** The same check with the model trained on {@code device} (the reference there too); the step sees host arrays. */
    public static Check checkShardedStep(int rank, int size, Communicator comm, FlatStep sharded, Device device) {
        String who = "rank " + rank + ": ";
        int n = parameterCount(), shard = shardLength(n, size);
        Lesson07Probe probe = Lesson07Probe.run(rank, size, sharded);
        if (Grading.seed() != 0) Lesson07Probe.graded(rank, size, sharded, Grading.seed());
        float[] reference;
        String failed = null;
        float[] theirs = null;
        try {
            reference = train(rank, size, n, plainStep(comm), device);
            if (!anyRank(comm, probe.threw())) {        // the ranks agree before calling collectives again
                try {
                    theirs = train(rank, size, shard, sharded, device);
                } catch (RuntimeException e) {
                    failed = Lesson07Probe.explainThrown(e, shard);
                }
            }
        } catch (RuntimeException e) {                  // the communicator broke under the student's collectives
            String hint = probe.hint() != null ? probe.hint() : Lesson07Probe.explainThrown(e, shard);
            return Check.wrong(who + "the sharded step is not right yet", hint + (comm.isBroken() ? " The communicator is"
                    + " broken now: run %mpj restart, then the cells again from the one after %mpj start." : ""));
        }
        if (probe.hint() != null) return Check.wrong(who + "the sharded step is not right yet", probe.hint());
        if (failed != null) return Check.wrong(who + "the sharded step failed in training", failed);
        double d = theirs == null ? Double.NaN : EquivalenceCheck.relativeDifference(theirs, reference);
        if (theirs == null) {
            return Check.wrong(who + "another rank's step failed", "look at the other ranks' messages.");
        }
        if (!(d < 1e-5)) {
            return Check.wrong(who + "not plain data parallelism's training", String.format(Locale.ROOT,
                    "the probe was right, but after %d training steps the parameters differ from plain data parallelism by"
                            + " %.1e of their size. Use the velocity array for your slice only and update every element of it.",
                    STEPS, d));
        }
        int start = Math.min(n, rank * shard), end = Math.min(n, start + shard);
        String memory = size == 1 ? "On one rank the slice is the whole model: run it on several ranks to share the state."
                : String.format(Locale.ROOT, "This rank kept momentum for its slice [%d, %d) only: %d floats instead of %d.",
                        start, end, shard, n);
        return Check.right(who + "same parameters as plain data parallelism", String.format(Locale.ROOT,
                "after %d steps the largest difference is %.1e of the parameters' size: equal up to float rounding. %s", STEPS, d, memory));
    }

    /**
     * The parameters every rank must hold after the grading's two sharded steps on {@code size} ranks: the grader's
     * side of grading by data ({@link Grading}); the check records what the student's step gave on the same inputs.
     */
    public static double[] gradingAnswer(int size, long seed) {
        return Lesson07Probe.gradingAnswer(size, seed);
    }

    /** True on every rank when {@code mine} is true on any rank (one all-reduce, MAX). */
    private static boolean anyRank(Communicator comm, boolean mine) {
        int[] flag = {mine ? 1 : 0};
        comm.allReduce(HostBuffer.of(flag), Reduction.MAX);
        return flag[0] != 0;
    }
}
