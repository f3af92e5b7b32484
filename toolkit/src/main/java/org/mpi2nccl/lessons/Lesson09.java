package org.mpi2nccl.lessons;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.nn.Flatten;
import org.mpi2nccl.nn.Linear;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.ReLU;
import org.mpi2nccl.nn.Sequential;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/**
 * Lesson 09, fully sharded data parallelism (ZeRO stage 3, FSDP): the lesson's model as two units (flatten, 36 x 32
 * linear and ReLU: 1184 parameters; 32 x 5 linear: 165), which 3, and 2 and 4, do not divide; the interface of the
 * student's sharded unit; one training step through such units; and the small helpers the exercise uses to move flat
 * values in and out of a layer. The check lives in {@link Lesson09Check}, the memory measurement in
 * {@link Lesson09Memory}. Everything runs on thread ranks of the kernel's JVM, on the CPU.
 */
public final class Lesson09 {
    public static final long SEED = 9;
    public static final float LR = 0.1f;
    public static final float MOMENTUM = 0.9f;
    /** Rank counts the lesson and its check run on, as threads. */
    public static final int[] RANKS = {1, 2, 3, 4};
    /** How long a collective of the student's code may wait for the other thread ranks. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private Lesson09() {
    }

    /** The student's sharded unit: one layer of the model, of which this rank keeps one slice. */
    public interface Unit {
        /** The unit's output for {@code x}; the unit's full parameters are freed before it returns. */
        Tensor forward(Tensor x);

        /**
         * From the gradient of the unit's output: the gradient of its input (what the unit before it receives);
         * this rank's slice of the averaged parameter gradient is left in the shard's gradient.
         */
        NDArray backward(NDArray outGrad);

        /** The wrapped optimizer's update of this rank's slice. */
        void step();
    }

    /** Makes the student's unit over one layer's factory; {@code makeOptimizer} makes the wrapped optimizer. */
    @FunctionalInterface
    public interface Factory {
        Unit wrap(Supplier<Module> makeLayer, Communicator comm, Function<List<Tensor>, Optimizer> makeOptimizer);
    }

    /** Unit {@code u} of the lesson's model, its weights drawn from {@code seed}: every call builds the same layer. */
    public static Module unit(int u, long seed) {
        Device cpu = Device.cpu();
        return switch (u) {
            case 0 -> new Sequential(new Flatten(), new Linear(36, 32, cpu, new Rng(seed)), new ReLU());
            case 1 -> new Linear(32, 5, cpu, new Rng(seed + 1));
            default -> throw new IllegalArgumentException("the lesson's model has units 0 and 1, not " + u);
        };
    }

    /** The factories of the model's units, weights from {@link #seed()}. */
    public static List<Supplier<Module>> units() {
        long seed = seed();
        return List.of(() -> unit(0, seed), () -> unit(1, seed));
    }

    /** The whole model, unit after unit, as one rank of plain training holds it. */
    public static Module wholeModel(long seed) {
        return new Sequential(unit(0, seed), unit(1, seed));
    }

    /** The random seed of the units' weights: {@link #SEED}, or a grader's own ({@link Grading#seed}). */
    static long seed() {
        return Grading.seed() != 0 ? Grading.seed() : SEED;
    }

    /** SGD with momentum, the optimizer the lesson wraps. */
    public static Function<List<Tensor>, Optimizer> sgd() {
        return ps -> new SGD(ps, LR, MOMENTUM, 0f);
    }

    /** The layer's parameters end to end (its order of {@code parameters()}). */
    public static float[] values(Module layer) {
        return EquivalenceCheck.flatParameters(layer);
    }

    /** Writes the first {@code parameterCount()} of {@code values} into the layer's parameters: padding is ignored. */
    public static void load(Module layer, float[] values) {
        Lesson07.setParameters(layer, values);
    }

    /** The layer's gradients end to end; a parameter without a gradient gives zeros. */
    public static float[] gradients(Module layer) {
        return Lesson07.flatGradients(layer);
    }

    /** The slice each rank keeps of a unit of {@code n} parameters: ceil(n / size). */
    public static int shardLength(long n, int size) {
        return Math.toIntExact((n + size - 1) / size);
    }

    /** Parameters of unit {@code u}. */
    public static int parameterCount(int u) {
        try (Module m = unit(u, SEED)) {
            return Math.toIntExact(m.parameterCount());
        }
    }

    /**
     * One training step through sharded units on {@code b}: forward unit after unit, the loss on a leaf holding the
     * last output (its gradient is where backward starts), backward unit by unit in reverse, then every unit's step.
     * Returns the loss of this rank's examples.
     */
    public static float step(List<Unit> units, Batch b) {
        Tensor h = Tensor.constant(b.x());
        for (Unit u : units) h = u.forward(h);
        Tensor logits = Tensor.leaf(h.data(), true);
        Tensor loss = new SoftmaxCrossEntropyLoss().forward(logits, b.y());
        loss.backward();
        NDArray g = logits.grad();
        for (int u = units.size() - 1; u >= 0; u--) g = units.get(u).backward(g);
        for (Unit u : units) u.step();
        return loss.item();
    }

    /**
     * {@code epochs} epochs of the lesson's data on {@code ranks} thread ranks through {@code factory}'s units; per
     * epoch, the mean loss of rank 0's batches.
     */
    public static List<Double> train(int ranks, int epochs, Factory factory) {
        return LocalRanks.run(ranks, b -> b.timeout(TIMEOUT), comm -> {
            List<Unit> units = new ArrayList<>();
            for (Supplier<Module> make : units()) units.add(factory.wrap(make, comm, sgd()));
            List<Double> losses = new ArrayList<>();
            for (int e = 0; e < epochs; e++) {
                double sum = 0;
                int n = 0;
                for (Batch b : Lesson07.loader(comm.rank(), comm.size(), Device.cpu()).epoch(e)) {
                    try (ArrayScope scope = ArrayScope.open(); b) {
                        sum += step(units, b);
                        n++;
                    }
                }
                losses.add(sum / n);
            }
            return losses;
        }).get(0);
    }

    /**
     * {@link #train} with the student's units, for a cell that must run before the class is written: the losses, or
     * null after printing why the class did not train.
     */
    public static List<Double> trainOrSay(int ranks, int epochs, Factory factory) {
        List<List<Double>> losses = new ArrayList<>();
        String why = CheckRanks.attempt(() -> {
            losses.add(train(ranks, epochs, factory));
            return null;
        });
        if (why == null) return losses.get(0);
        System.out.println("MyFsdpUnit did not train yet (" + why + ") Run the check above: it names the first wrong place.");
        return null;
    }

    /** Two runs' mean losses per epoch compared, in a sentence; {@code yours} null when the student's did not train. */
    public static String compare(List<Double> yours, List<Double> library) {
        StringBuilder s = new StringBuilder("the library's mean loss per epoch:");
        for (double l : library) s.append(String.format(java.util.Locale.ROOT, " %.4f", l));
        if (yours == null) return s.append(". Yours: none yet.").toString();
        double most = 0;
        for (int e = 0; e < library.size(); e++) most = Math.max(most, Math.abs(yours.get(e) - library.get(e)));
        return s.append(String.format(java.util.Locale.ROOT, ". Yours differ by %.1e at most: %s", most, most < 1e-4
                ? "the same training, up to the order of float additions." : "not the same training: look at the check.")).toString();
    }

    /** The shard lengths and padding of each unit on 1 to 4 ranks, one line per rank count. */
    public static String shardPlan() {
        StringBuilder s = new StringBuilder();
        int[] counts = {parameterCount(0), parameterCount(1)};
        for (int n : RANKS) {
            s.append(n).append(n == 1 ? " rank: " : " ranks:");
            for (int u = 0; u < counts.length; u++) {
                int shard = shardLength(counts[u], n), pad = shard * n - counts[u];
                s.append(String.format(java.util.Locale.ROOT, "  unit %d keeps %4d of %d%s", u, shard, counts[u],
                        pad > 0 ? " (" + pad + " padding)" : ""));
            }
            s.append('\n');
        }
        return s.toString();
    }
}
