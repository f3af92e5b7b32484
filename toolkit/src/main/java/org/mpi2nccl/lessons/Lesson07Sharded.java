package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Adam;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;

/**
 * Lesson 07's second exercise: the sharded optimizer as a class, as CS336's students write it and PyTorch ships it
 * ({@code ZeroRedundancyOptimizer}). It wraps any optimizer of the toolkit: the constructor makes every rank's model
 * equal to rank 0's and gives the wrapped optimizer this rank's slice only; {@code step()} reduce-scatters the
 * gradients, lets the wrapped optimizer update the slice and all-gathers the parameters.
 *
 * <p>The check trains the lesson's model (1349 parameters, which 2, 3 and 4 do not divide) from copies that start
 * different on every rank, with SGD with momentum and with Adam, on the notebook's ranks and, on rank 0, on 1, 2, 3
 * and 4 ranks as threads. Each run must end where one rank with the whole batch and the plain optimizer ends. The first
 * wrong place is named: the copies after the constructor, the size of what the wrapped optimizer was given, or the
 * parameters after training.
 */
public final class Lesson07Sharded {
    /** Rank counts tried as threads on rank 0. */
    static final int[] THREAD_RANKS = {1, 2, 3, 4};
    /** Steps of each run: a wrong slice or a sum for a mean is off from the first step. */
    static final int STEPS = 4;
    static final long SEED = 100;
    /** The exercise's name in the notebook's metadata and in a graded run's answers. */
    public static final String EXERCISE = "sharded-optimizer";

    /** The student's sharded optimizer, one per rank. */
    public interface Sharded {
        /** Zeroes every parameter's gradient (before backward). */
        void zeroGrad();

        /** One update of the whole model from this rank's gradients. */
        void step() throws Exception;
    }

    /** Makes the student's optimizer over the model's parameters; {@code makeOptimizer} makes the wrapped one. */
    @FunctionalInterface
    public interface Factory {
        Sharded wrap(List<Tensor> params, Communicator comm, Function<List<Tensor>, Optimizer> makeOptimizer) throws Exception;
    }

    /** An optimizer the check wraps: its name and how to make it over some parameters. */
    record Kind(String name, Function<List<Tensor>, Optimizer> make) {
    }

    static final List<Kind> KINDS = List.of(
            new Kind("SGD with momentum", ps -> new SGD(ps, Lesson07.LR, Lesson07.MOMENTUM, 0f)),
            new Kind("Adam", ps -> new Adam(ps, 0.01f)));

    private Lesson07Sharded() {
    }

    /** The exercise on the notebook's ranks, then (rank 0) on 1 to 4 thread ranks. Collective: run it on every rank. */
    public static Check check(int rank, int size, Communicator comm, Factory factory) {
        String who = "rank " + rank + ": ";
        List<String> runs = new ArrayList<>();
        for (Kind k : KINDS) {
            CheckRanks.Outcome o = run(comm, factory, k);
            if (o.wrong() != null) {
                return Check.wrong(who + "your sharded optimizer is not plain training yet (" + k.name() + ")", o.wrong());
            }
            // a graded run: the digest of the SGD run's parameters, which the grader computes itself from its seed
            if (k == KINDS.get(0)) Grading.record(EXERCISE, Lesson03Grading.digest(o.params()));
            runs.add(k.name() + " on " + size + " ranks");
        }
        if (rank == 0) {
            for (int n : THREAD_RANKS) {
                for (Kind k : KINDS) {
                    Check wrong = CheckRanks.onThreadRanks(who, size, n, comm, k.name(), c -> run(c, factory, k).wrong());
                    if (wrong != null) return wrong;
                }
                runs.add(n + " thread ranks");
            }
        }
        return Check.right(who + "your sharded optimizer trains like the plain one", "copies made equal by the"
                + " constructor, the wrapped optimizer given this rank's slice only; runs: " + String.join("; ", runs) + ".");
    }

    /**
     * The random number the models' weights are drawn from: {@link #SEED}, or a grader's own ({@link Grading#seed}),
     * so that a graded run starts from weights nobody saw and the grader compares the result with its own training.
     */
    static long seed() {
        return Grading.seed() != 0 ? Grading.seed() : SEED;
    }

    /** One run of {@link #STEPS} steps on {@code comm}'s ranks. Collective. */
    static CheckRanks.Outcome run(Communicator comm, Factory factory, Kind kind) {
        int rank = comm.rank(), size = comm.size();
        int n = Lesson07.parameterCount(), shard = Lesson07.shardLength(n, size);
        AtomicLong given = new AtomicLong(-1);
        Function<List<Tensor>, Optimizer> counted = ps -> {
            given.set(ps.stream().mapToLong(Tensor::size).sum());
            return kind.make().apply(ps);
        };
        long seed = seed();
        Communicator own = CheckRanks.own(comm);
        try (Module net = Lesson07.model(Device.cpu(), seed + rank); Module rank0 = Lesson07.model(Device.cpu(), seed)) {
            Sharded[] opt = new Sharded[1];
            String wrong = CheckRanks.agree(comm, CheckRanks.attempt(() -> {
                opt[0] = factory.wrap(net.parameters(), own, counted);
                if (opt[0] == null) return "the factory returned null: return your optimizer (new MyShardedOptimizer(...)).";
                String copies = CheckRanks.copiesDiffer(net, rank0);
                if (copies != null || given.get() == shard) return copies;
                return given.get() < 0 ? "the wrapped optimizer was never made: call makeOptimizer.apply(...) in the"
                        + " constructor, on a tensor that holds this rank's slice."
                        : String.format(Locale.ROOT, "the wrapped optimizer was given %d parameters; this rank's slice has"
                        + " %d (ceil(%d / %d)). ZeRO-1 keeps optimizer state for the slice only: make it over one tensor"
                        + " of the slice's length.", given.get(), shard, n, size);
            }));
            if (wrong != null) return CheckRanks.Outcome.wrong(wrong);
            float[][] got = new float[1][];
            wrong = CheckRanks.agree(comm, CheckRanks.attempt(() -> {
                got[0] = train(net, opt[0], rank, size);
                double d = EquivalenceCheck.relativeDifference(got[0], reference(kind, seed));
                return d < 1e-5 ? null : String.format(Locale.ROOT, "after %d steps the parameters differ from one rank's"
                        + " with the whole batch and the plain optimizer by %s (relative). The copies and the slice's size"
                        + " were right, so look at the step: the gradients averaged (not summed) by the reduce-scatter,"
                        + " padded with zeros to size x shard, your slice's gradient handed to the wrapped optimizer"
                        + " before its step, and every rank's slice copied back after the all-gather.", STEPS,
                        Lesson03Diagnosis.fmt(d));
            }));
            return new CheckRanks.Outcome(wrong, wrong == null ? got[0] : null);
        } finally {
            own.close();
        }
    }

    /** {@link #STEPS} steps of this rank's share of each batch through {@code opt}; the parameters after. */
    private static float[] train(Module net, Sharded opt, int rank, int size) throws Exception {
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        DataLoader loader = Lesson07.loader(rank, size, Device.cpu());
        int done = 0;
        for (Batch b : loader.epoch(0)) {
            try (ArrayScope scope = ArrayScope.open(); b) {
                if (done++ >= STEPS) continue;
                opt.zeroGrad();
                lossFn.forward(net.forward(Tensor.constant(b.x())), b.y()).backward();
                opt.step();
            }
        }
        return EquivalenceCheck.flatParameters(net);
    }

    private static final Map<String, float[]> REFERENCES = new ConcurrentHashMap<>();

    /** One rank with the whole batch and the plain optimizer over every parameter: what every run must end at. */
    static float[] reference(Kind kind, long seed) {
        return REFERENCES.computeIfAbsent(kind.name() + "/" + seed, k -> {
            try (Module net = Lesson07.model(Device.cpu(), seed); Optimizer plain = kind.make().apply(net.parameters())) {
                Sharded whole = new Sharded() {
                    public void zeroGrad() { net.zeroGrad(); }
                    public void step() { plain.step(); }
                };
                return train(net, whole, 0, 1);
            } catch (Exception e) {
                throw new IllegalStateException("the one-rank reference failed: " + e, e);
            }
        });
    }

    /** The digest every rank's SGD run must give in a graded run with {@code seed}: computed by the grader, not the run. */
    public static double[] gradingAnswer(long seed) {
        return Lesson03Grading.digest(reference(KINDS.get(0), seed));
    }
}
