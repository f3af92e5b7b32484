package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.data.ArrayDataset;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.Dataset;
import org.mpi2nccl.data.FashionMnist;
import org.mpi2nccl.data.RandomSampler;
import org.mpi2nccl.parallel.DistributedSampler;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.parallel.GradientBuckets;
import org.mpi2nccl.lessons.Lesson03Training.Run;
import org.mpi2nccl.lessons.Lesson03Training.StepSync;
import org.mpi2nccl.nn.Flatten;
import org.mpi2nccl.nn.Linear;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.ReLU;
import org.mpi2nccl.nn.Sequential;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.Rng;

/**
 * Lesson 03, data-parallel training over MPI, built in four stages as the student writes them: (1) each rank's share
 * of the batch, (2) one all-reduce per gradient tensor, (3) gradients flattened into buckets, one all-reduce per
 * bucket, (4) a bucket's all-reduce started while backward still runs. This class holds the plumbing (data, model,
 * batches) and the checks: each trains {@link #STEPS} steps with the student's code, compares the parameters with
 * one rank trained on the whole batch (computed here), explains a mismatch, and times the steps
 * ({@link Lesson03Meter}, {@link Lesson03Times}). The algorithms are the student's. The notebook trains on the CPU
 * with Fashion-MNIST; each check also takes a {@link Setup} (a device and a data set), so that the same checks run
 * on a GPU, where the model, the batches and the gradients live on that device and so does the one-rank reference.
 */
public final class Lesson03 {
    /** The one rank's batch B: 1, 2, 3 or 4 ranks take B/N each. */
    public static final int BATCH = 48;
    public static final int STEPS = 30;
    public static final float LR = 0.1f;
    public static final float MOMENTUM = 0.9f;
    public static final long SEED = 7;
    /** Hidden units of the lesson's MLP. */
    public static final int HIDDEN = 256;
    /** Stage 3 and 4's bucket size: the model's 8 gradient tensors (1.3 MB) fit in 3 buckets. */
    public static final long BUCKET_BYTES = 300 * 1024;
    /** Largest relative difference from the one rank's parameters after {@link #STEPS} steps that is float rounding. */
    public static final double TOLERANCE = 1e-4;

    /** Stage 1: rank {@code rank}'s examples at step {@code step}, {@code perRank} of them, from the epoch's {@code order}. */
    @FunctionalInterface
    public interface Share {
        int[] indices(int[] order, int step, int perRank, int rank, int size);
    }

    /** Stage 2: after backward, every parameter's gradient becomes its mean over the ranks. */
    @FunctionalInterface
    public interface Averaging {
        void average(List<Tensor> params, Communicator comm);
    }

    /** Stage 3: the parameters grouped into buckets of at most {@code bucketBytes} (a larger tensor alone). */
    @FunctionalInterface
    public interface Planner {
        List<List<Tensor>> plan(List<Tensor> params, long bucketBytes);
    }

    /** Stage 3: after backward, each bucket's gradients averaged with one all-reduce. */
    @FunctionalInterface
    public interface BucketAveraging {
        void average(List<List<Tensor>> buckets, Communicator comm);
    }

    /** Stage 4: one step's averaging, told of each gradient as backward finishes it. */
    public interface Overlap {
        /** Backward has finished {@code param}'s gradient. */
        void gradientReady(Tensor param) throws Exception;

        /** Backward is over: when this returns, every gradient is the mean over the ranks. */
        void finish() throws Exception;
    }

    /** Stage 4: a new {@link Overlap} for each step; blocking all-reduces go to {@code commThread}. */
    @FunctionalInterface
    public interface OverlapFactory {
        Overlap start(List<List<Tensor>> buckets, Communicator comm, ExecutorService commThread);
    }

    /**
     * Where a check trains: {@code device} holds the model, its batches and gradients (the reference's too);
     * {@code data} gives the examples, at least {@code BATCH * STEPS} of them, each of 784 features in 10 classes.
     */
    public record Setup(Device device, Dataset data) {
        public Setup {
            if (data.size() < BATCH * STEPS || data.featureSize() != 784 || data.numClasses() != 10) {
                throw new IllegalArgumentException("the lesson's model needs " + BATCH * STEPS + " examples of 784 features"
                        + " in 10 classes, got " + data.size() + " of " + data.featureSize() + " in " + data.numClasses());
            }
        }

        /** The notebook's: the CPU and the lesson's Fashion-MNIST images. */
        public static Setup notebook() {
            return new Setup(Device.cpu(), Lesson03.data());
        }
    }

    private static ArrayDataset data;

    private Lesson03() {
    }

    // ---- plumbing: data, model, batches --------------------------------------------------------------------------

    /** The {@code BATCH * STEPS} Fashion-MNIST images the lesson trains on (loaded once). */
    public static synchronized ArrayDataset data() {
        if (data == null) data = FashionMnist.train().head(BATCH * STEPS);
        return data;
    }

    /** The epoch's order of the examples: the same permutation on every rank (same seed). */
    public static int[] order() {
        return RandomSampler.permutation(BATCH * STEPS, seed(), 0);
    }

    /**
     * The seed of the examples' order: {@link #SEED}, or a grader's own ({@link Grading#seed}), so that a graded run
     * trains on batches nobody saw and the grader compares the result with its own training ({@link Lesson03Grading}).
     */
    static long seed() {
        return Grading.seed() != 0 ? Grading.seed() : SEED;
    }

    /** The lesson's MLP (784, 256, 256, 256, 10: 8 tensors), the same weights on every rank (one random seed). */
    public static Module model() {
        return model(Device.cpu());
    }

    /** The lesson's MLP on {@code device}: the same weights as on the CPU (one random seed). */
    public static Module model(Device device) {
        return model(device, SEED);
    }

    private static Module model(Device device, long seed) {
        Rng rng = new Rng(seed);
        return new Sequential(new Flatten(), new Linear(784, HIDDEN, device, rng), new ReLU(), new Linear(HIDDEN, HIDDEN, device, rng),
                new ReLU(), new Linear(HIDDEN, HIDDEN, device, rng), new ReLU(), new Linear(HIDDEN, 10, device, rng));
    }

    /** The examples {@code indices} as one batch on the CPU (close it, or open an ArrayScope). */
    public static Batch batch(int[] indices) {
        return batch(indices, data(), Device.cpu());
    }

    /** The examples {@code indices} of {@code d} as one batch on {@code device}: gathered on the host, copied once. */
    public static Batch batch(int[] indices, Dataset d, Device device) {
        return Batch.of(d, indices, device);
    }

    /** The toolkit's share of step {@code step} for rank {@code rank} (DistributedSampler; stages 2-4 train on it). */
    public static int[] share(int step, int rank, int size) {
        return share(step, rank, size, seed());
    }

    static int[] share(int step, int rank, int size, long seed) {
        int perRank = perRank(size);
        int[] all = new DistributedSampler(BATCH * STEPS, rank, size, seed, true, DistributedSampler.Tail.DROP).indices(0);
        int[] mine = new int[perRank];
        System.arraycopy(all, step * perRank, mine, 0, perRank);
        return mine;
    }

    static int perRank(int size) {
        if (size < 1 || BATCH % size != 0) throw new IllegalArgumentException("use 1, 2, 3 or 4 ranks (they divide the batch of " + BATCH + ")");
        return BATCH / size;
    }

    /** Parameter names of the lesson's model, in its order (for the hints). */
    static List<String> names(Module net) {
        return new ArrayList<>(net.namedParameters().keySet());
    }

    // ---- the checks ---------------------------------------------------------------------------------------------

    /** Stage 1: the student's shares, trained with the toolkit's averaging. Collective: run it on every rank. */
    public static Check checkShares(int rank, int size, Communicator comm, Lesson03Times times, Share share) {
        return CheckRanks.withOwn(comm, own -> checkShares(Setup.notebook(), rank, size, own, times, share));
    }

    /** Stage 1 trained where {@code on} says. */
    public static Check checkShares(Setup on, int rank, int size, Communicator comm, Lesson03Times times, Share share) {
        int perRank = perRank(size);
        int[] order = order();
        int[][][] s = new int[STEPS][size][];
        try {
            for (int k = 0; k < STEPS; k++) for (int r = 0; r < size; r++) s[k][r] = share.indices(order.clone(), k, perRank, r, size);
        } catch (RuntimeException e) {
            return failed(rank, "1", e);
        }
        String problem = Lesson03Diagnosis.shares(s, order, perRank);
        Run ref = reference(on, times);
        Lesson03Meter meter = new Lesson03Meter(comm);
        double d = Double.NaN;
        if (Lesson03Diagnosis.trainable(s, order.length)) {
            Module net = model(on.device());
            try {
                Run trained = Lesson03Training.train(on, net, k -> s[k][rank], () -> () -> {
                    for (Tensor p : net.parameters()) Tensors.allReduce(meter.comm(), p.grad(), Reduction.AVG);
                }, meter);
                Grading.record("shares", Lesson03Grading.digest(trained.early()));
                d = Lesson03Grading.difference(trained, ref);
            } catch (Exception e) {
                return failed(rank, "1", e);
            } finally {
                net.close();
            }
        }
        String who = "rank " + rank + ": ";
        if (problem == null && d < Lesson03Grading.tolerance()) {
            times.record(Lesson03Times.SHARES, perRank, meter.summary(), false);
            return Check.right(who + "the shares of every step are the one rank's batch", sameAs(d, size));
        }
        return Check.wrong(who + "the shares are not the one rank's batches", (problem != null ? problem
                : "the shares look right but the parameters differ by " + Lesson03Diagnosis.fmt(d) + ".")
                + (Double.isNaN(d) ? "" : " After " + Lesson03Grading.comparedSteps() + " steps the parameters differ from one rank's by "
                + Lesson03Diagnosis.fmt(d) + " (relative)."));
    }

    /** Stage 2: the student's per-tensor averaging. Collective: run it on every rank. */
    public static Check checkAveraging(int rank, int size, Communicator comm, Lesson03Times times, Averaging averaging) {
        return CheckRanks.withOwn(comm, own -> checkAveraging(Setup.notebook(), rank, size, own, times, averaging));
    }

    /** Stage 2 trained where {@code on} says. */
    public static Check checkAveraging(Setup on, int rank, int size, Communicator comm, Lesson03Times times, Averaging averaging) {
        return checkStage(on, "2", Lesson03Times.PER_TENSOR, rank, size, comm, times, (net, meter) -> {
            List<Tensor> params = net.parameters();
            return () -> () -> averaging.average(params, meter.comm());
        }, "Allreduce each parameter's gradient over the ranks and write the result back into p.grad().");
    }

    /** Stage 3: the student's bucket plan and bucketed averaging. Collective: run it on every rank. */
    public static Check checkBuckets(int rank, int size, Communicator comm, Lesson03Times times, Planner planner,
                                     BucketAveraging averaging) {
        return CheckRanks.withOwn(comm, own -> checkBuckets(Setup.notebook(), rank, size, own, times, planner, averaging));
    }

    /** Stage 3 trained where {@code on} says. */
    public static Check checkBuckets(Setup on, int rank, int size, Communicator comm, Lesson03Times times, Planner planner,
                                     BucketAveraging averaging) {
        return checkStage(on, "3", Lesson03Times.BUCKETS, rank, size, comm, times, (net, meter) -> {
            List<Tensor> params = net.parameters();
            List<List<Tensor>> plan = planner.plan(params, BUCKET_BYTES);
            String wrong = Lesson03Diagnosis.plan(plan, params, names(net), BUCKET_BYTES);
            if (wrong != null) throw new WrongPlan(wrong);
            return () -> () -> averaging.average(plan, meter.comm());
        }, "Was its bucket all-reduced, and copied back from the flat buffer into p.grad()?");
    }

    /** Stage 4: the student's overlapped averaging, on the toolkit's bucket plan. Collective: run it on every rank. */
    public static Check checkOverlap(int rank, int size, Communicator comm, Lesson03Times times, OverlapFactory factory) {
        return CheckRanks.withOwn(comm, own -> checkOverlap(Setup.notebook(), rank, size, own, times, factory));
    }

    /** Stage 4 trained where {@code on} says. */
    public static Check checkOverlap(Setup on, int rank, int size, Communicator comm, Lesson03Times times, OverlapFactory factory) {
        ExecutorService commThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lesson03-allreduce-rank-" + rank);
            t.setDaemon(true);
            return t;
        });
        try {
            return checkStage(on, "4", Lesson03Times.OVERLAP, rank, size, comm, times, (net, meter) -> {
                List<List<Tensor>> plan = GradientBuckets.plan(net.parameters(), BUCKET_BYTES);
                return () -> {
                    Overlap o = factory.start(plan, meter.comm(), meter.watch(commThread));
                    if (o == null) throw new IllegalStateException("overlapStep returned null: return an Overlap");
                    return new StepSync() {
                        @Override public boolean listens() { return true; }
                        @Override public void gradientReady(Tensor p) throws Exception { o.gradientReady(p); }
                        @Override public void afterBackward() throws Exception { o.finish(); }
                    };
                };
            }, "Was its bucket launched when its last gradient was ready, and did finish() wait for every bucket's"
                    + " all-reduce (Future.get()) and copy it back before returning?");
        } finally {
            CheckRanks.quiesce(commThread, comm.timeout());
        }
    }

    /** The toolkit's DataParallel after {@link #STEPS} steps ({@code net}, timed by {@code meter}) against one rank. */
    public static Check checkLibrary(int rank, int size, Module net, Lesson03Meter meter, Lesson03Times times) {
        return checkLibrary(Setup.notebook(), rank, size, net, meter, times);
    }

    /** The same, against one rank trained where {@code on} says. */
    public static Check checkLibrary(Setup on, int rank, int size, Module net, Lesson03Meter meter, Lesson03Times times) {
        double d = EquivalenceCheck.relativeDifference(EquivalenceCheck.flatParameters(net), reference(on, times).params());
        if (d < TOLERANCE && meter.steps() == STEPS) {
            times.record(Lesson03Times.LIBRARY, perRank(size), meter.summary(), true);
            return Check.right("rank " + rank + ": DataParallel trains like one rank on the whole batch", sameAs(d, size));
        }
        return Check.wrong("rank " + rank + ": DataParallel is not the one rank's training", "after " + meter.steps()
                + " timed steps (expected " + STEPS + ", each on Lesson03.share(step, rank, size)) the parameters differ by "
                + Lesson03Diagnosis.fmt(d) + ".");
    }

    /** Builds one stage's per-step averaging for a model, with the meter's communicator; may throw what the student's code threw. */
    @FunctionalInterface
    private interface StageOf {
        Supplier<StepSync> of(Module net, Lesson03Meter meter) throws Exception;
    }

    private static Check checkStage(Setup on, String n, String row, int rank, int size, Communicator comm, Lesson03Times times,
                                    StageOf stage, String untouchedHint) {
        Run ref = reference(on, times);
        Lesson03Meter meter = new Lesson03Meter(comm);
        Run run;
        List<String> names;
        int buckets;
        try (Module net = model(on.device())) {
            names = names(net);
            buckets = GradientBuckets.plan(net.parameters(), BUCKET_BYTES).size();
            run = Lesson03Training.train(on, net, k -> share(k, rank, size), stage.of(net, meter), meter);
        } catch (WrongPlan e) {
            return Check.wrong("rank " + rank + ": the bucket plan is not right yet", e.getMessage());
        } catch (Exception e) {
            return failed(rank, n, e);
        }
        Grading.record(Lesson03Grading.STAGE_EXERCISES.get(n), Lesson03Grading.digest(run.early()));
        double d = Lesson03Grading.difference(run, ref);
        String who = "rank " + rank + ": ";
        Lesson03Meter.Summary s = meter.summary();
        if (d < Lesson03Grading.tolerance()) {
            if (n.equals("3") && Math.round(s.calls()) != buckets) {
                return Check.wrong(who + "right weights, but not bucketed", String.format(Locale.ROOT, "the plan has %d"
                        + " buckets and the step made %.0f all-reduce calls. Flatten each bucket's gradients into one"
                        + " buffer and all-reduce that buffer once: one call per bucket.", buckets, s.calls()));
            }
            if (n.equals("4") && s.overlapCalls() == 0 && meter.launchedInBackward() == 0) {
                return Check.wrong(who + "right weights, but no overlap", "every all-reduce started after backward had"
                        + " ended, as in stage 3. Start a bucket's all-reduce in gradientReady, on commThread, as soon as"
                        + " its last gradient is ready; finish() only waits.");
            }
            times.record(row, perRank(size), s, true);
            return Check.right(who + "same parameters as one rank with batch " + BATCH, sameAs(d, size)
                    + String.format(Locale.ROOT, " Per step: %.0f all-reduce calls, %.2f ms in them, %.2f ms waited after backward.",
                    s.calls(), s.allReduce(), s.waited()));
        }
        String why = Lesson03Diagnosis.gradients(names, run.local(), run.synced(), ref.local(), size, untouchedHint);
        if (why == null) {
            why = "the first step's gradients were right, but after " + Lesson03Grading.comparedSteps() + " steps the parameters differ by "
                    + Lesson03Diagnosis.fmt(d) + ": does your code keep something from one step to the next (a buffer"
                    + " added to instead of overwritten)?";
        }
        return Check.wrong(who + "not the one rank's training (parameters differ by " + Lesson03Diagnosis.fmt(d) + ")", why);
    }

    /** One rank on the whole batch, where {@code on} says: the reference every check compares with (timed once in {@code times}). */
    private static Run reference(Setup on, Lesson03Times times) {
        Lesson03Meter meter = new Lesson03Meter(null);
        try (Module net = model(on.device())) {
            Run r = Lesson03Training.train(on, net, k -> share(k, 0, 1), () -> Lesson03Training.NOTHING, meter);
            if (!times.has(Lesson03Times.ONE_RANK)) times.record(Lesson03Times.ONE_RANK, BATCH, meter.summary(), false);
            return r;
        } catch (Exception e) {
            throw new IllegalStateException("the one-rank reference failed: " + e, e);
        }
    }

    private static String sameAs(double d, int size) {
        return String.format(Locale.ROOT, "After %d steps on %d rank(s) the largest difference from one rank with batch %d is %s"
                + " of the parameters' size: float rounding only (the ranks add in another order).", STEPS, size, BATCH,
                Lesson03Diagnosis.fmt(d));
    }

    /** The student's code threw: not written yet (a stub), or what it threw. */
    private static Check failed(int rank, String stage, Throwable e) {
        e = CheckRanks.thrown(e);
        if (e instanceof UnsupportedOperationException) {
            return Check.wrong("rank " + rank + ": stage " + stage + " is not written yet", String.valueOf(e.getMessage()));
        }
        StackTraceElement at = e.getStackTrace().length > 0 ? e.getStackTrace()[0] : null;
        return Check.wrong("rank " + rank + ": stage " + stage + "'s code threw " + e.getClass().getSimpleName(), e.getMessage()
                + (at != null ? " (at " + at + ")" : "") + ". If one rank failed inside a collective, the others wait for it"
                + " until the communicator's timeout; restart the engines (%mpj stop, %mpj start) if a call stays broken.");
    }

    /** A bucket plan that breaks the rules (said before training, identically on every rank). */
    private static final class WrongPlan extends Exception {
        WrongPlan(String why) {
            super(why);
        }
    }
}
