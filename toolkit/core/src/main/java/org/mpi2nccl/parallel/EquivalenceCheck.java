package org.mpi2nccl.parallel;

import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.Dataset;
import org.mpi2nccl.data.RandomSampler;
import org.mpi2nccl.nn.BatchNorm2d;
import org.mpi2nccl.nn.Conv2d;
import org.mpi2nccl.nn.Flatten;
import org.mpi2nccl.nn.Linear;
import org.mpi2nccl.nn.MaxPool2d;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.ReLU;
import org.mpi2nccl.nn.Sequential;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.Rng;

/**
 * The correctness proof of data-parallel training: {@code steps} SGD steps on N ranks with per-rank batch B/N
 * must leave the same parameters as the same steps on one rank with batch B. Why it holds: the loss is a
 * mean over the batch, so the mean over B examples is the average of the N ranks' means over B/N; gradients
 * are linear in the loss, so averaging the N gradients (the all-reduce) gives the gradient of the big batch.
 * The {@link DistributedSampler} makes the N shares of step k together exactly the single rank's batch k.
 *
 * <p>Each rank builds its model from a different seed ({@code seed + 1000 * rank}), so the check also proves
 * that rank 0's weights were broadcast. Models: {@code mlp} and {@code cnn} hold exactly; {@code cnn-bn}
 * (with batch norm) does not, because batch-norm statistics are local to each rank's B/N examples.
 */
public final class EquivalenceCheck {
    private EquivalenceCheck() {}

    /**
     * What to train.
     *
     * @param model        mlp (flatten, 32 hidden, ReLU), cnn (conv 4 + pool, linear), or cnn-bn (cnn with batch norm)
     * @param data         the training examples (every rank the same)
     * @param globalBatch  B: the single rank's batch; each of N ranks takes B/N
     * @param steps        SGD steps
     * @param seed         weights and shuffling
     */
    public record Setup(String model, Dataset data, int globalBatch, int steps, long seed, float lr, float momentum) {
        public Setup {
            if (steps < 1) throw new IllegalArgumentException("steps must be >= 1, got " + steps);
            if (globalBatch < 1) throw new IllegalArgumentException("batch must be >= 1, got " + globalBatch);
        }
    }

    /** The model of the check, its weights drawn from {@code seed}. */
    public static Module model(String kind, Dataset data, Device device, long seed) {
        Rng rng = new Rng(seed);
        int[] s = data.featureShape();
        int classes = data.numClasses();
        return switch (kind) {
            case "mlp" -> new Sequential(new Flatten(), new Linear(data.featureSize(), 32, device, rng), new ReLU(),
                    new Linear(32, classes, device, rng));
            case "cnn", "cnn-bn" -> {
                if (s.length != 3) throw new IllegalArgumentException("cnn needs (C, H, W) examples, got " + java.util.Arrays.toString(s));
                int flat = 4 * (s[1] / 2) * (s[2] / 2);
                Module bn = kind.equals("cnn-bn") ? new BatchNorm2d(4, device) : new ReLU();
                yield new Sequential(new Conv2d(s[0], 4, 3, 1, 1, device, rng), bn, new ReLU(), new MaxPool2d(2), new Flatten(),
                        new Linear(flat, classes, device, rng));
            }
            default -> throw new IllegalArgumentException("unknown model '" + kind + "': use mlp, cnn or cnn-bn");
        };
    }

    /** The reference: one rank, batch B, shuffled by a plain {@link RandomSampler}. Returns the parameters after. */
    public static float[] singleRank(Setup s, Device device) {
        try (Module net = model(s.model(), s.data(), device, s.seed());
             SGD opt = new SGD(net.parameters(), s.lr(), s.momentum(), 0f)) {
            DataLoader loader = new DataLoader(s.data(), s.globalBatch(), new RandomSampler(s.data().size(), s.seed()), true, device);
            SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
            int done = 0;
            for (int epoch = 0; done < s.steps(); epoch++) {
                for (Batch b : loader.epoch(epoch)) {
                    if (done == s.steps()) {
                        b.close();
                        continue;
                    }
                    try (ArrayScope step = ArrayScope.open(); b) {
                        opt.zeroGrad();
                        Tensor loss = lossFn.forward(net.forward(Tensor.constant(b.x())), b.y());
                        loss.backward();
                        opt.step();
                    }
                    done++;
                }
                if (loader.batchesPerEpoch() == 0) throw new IllegalArgumentException("the data set has fewer examples than one batch");
            }
            return flatParameters(net);
        }
    }

    /** This rank's part of the same training on {@code comm}'s ranks, batch B/N each. Returns the parameters after. */
    public static float[] dataParallel(Setup s, Communicator comm, Device device, DataParallel.Options options) {
        return dataParallel(s, comm, device, options, dp -> { });
    }

    /** The same, with {@code setup} applied to the step before training (a comm hook, a listener). */
    public static float[] dataParallel(Setup s, Communicator comm, Device device, DataParallel.Options options,
                                       java.util.function.Consumer<DataParallel> setup) {
        try (Module net = rankModel(s, device, comm.rank());
             DataParallel dp = new DataParallel(net, comm, options)) {
            setup.accept(dp);
            return train(s, dp);
        }
    }

    /**
     * Rank {@code rank}'s model: weights drawn from a seed of its own, so that the check also proves that rank 0's
     * weights were broadcast.
     */
    public static Module rankModel(Setup s, Device device, int rank) {
        return model(s.model(), s.data(), device, s.seed() + 1000L * rank);
    }

    /** {@code s.steps()} SGD steps of {@code dp} on this rank's share, batch B/N each. Returns the parameters after. */
    public static float[] train(Setup s, DataParallel dp) {
        int perRank = DataChecks.perRankBatch(s.globalBatch(), dp.ranks());
        DistributedSampler sampler = new DistributedSampler(s.data().size(), dp.rank(), dp.ranks(), s.seed(), true,
                DistributedSampler.Tail.DROP);
        Module net = dp.model();
        Device device = net.parameters().get(0).device();
        try (SGD opt = new SGD(net.parameters(), s.lr(), s.momentum(), 0f)) {
            DataLoader loader = new DataLoader(s.data(), perRank, sampler, true, device);
            SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
            int done = 0;
            for (int epoch = 0; done < s.steps(); epoch++) {
                for (Batch b : loader.epoch(epoch)) {
                    if (done == s.steps()) {
                        b.close();
                        continue;
                    }
                    try (ArrayScope step = ArrayScope.open(); b) {
                        dp.step(b, opt, lossFn);
                    }
                    done++;
                }
                if (loader.batchesPerEpoch() == 0) throw new IllegalArgumentException("the data set has fewer examples than one batch");
            }
            return flatParameters(net);
        }
    }

    /** Every parameter's values, in the model's order, one flat array. */
    public static float[] flatParameters(Module m) {
        int n = Math.toIntExact(m.parameterCount());
        float[] out = new float[n];
        int at = 0;
        for (Tensor p : m.parameters()) {
            float[] v = p.data().toArray();
            System.arraycopy(v, 0, out, at, v.length);
            at += v.length;
        }
        return out;
    }

    /** max |a - b| over max |b|: 0 when equal, about 1e-7 for float rounding. */
    public static double relativeDifference(float[] a, float[] b) {
        if (a.length != b.length) throw new IllegalArgumentException("different lengths: " + a.length + " and " + b.length);
        double diff = 0, scale = 0;
        for (int i = 0; i < a.length; i++) {
            diff = Math.max(diff, Math.abs((double) a[i] - b[i]));
            scale = Math.max(scale, Math.abs(b[i]));
        }
        return scale == 0 ? diff : diff / scale;
    }

    /** Number of elements that differ in their bits. */
    public static int differingElements(float[] a, float[] b) {
        int n = 0;
        for (int i = 0; i < Math.min(a.length, b.length); i++) if (Float.floatToIntBits(a[i]) != Float.floatToIntBits(b[i])) n++;
        return n + Math.abs(a.length - b.length);
    }
}
