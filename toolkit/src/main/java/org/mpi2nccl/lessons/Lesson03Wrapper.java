package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.nn.Flatten;
import org.mpi2nccl.nn.Linear;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.ReLU;
import org.mpi2nccl.nn.Sequential;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.Rng;

/**
 * Lesson 03's stage 5: the student's own data-parallel wrapper, the component CS336's students write and PyTorch
 * calls DistributedDataParallel. It wraps a model and a communicator; its constructor makes every rank's copy equal
 * to rank 0's; {@code backward} launches each bucket's all-reduce as backward finishes the bucket's gradients;
 * {@code finish} waits for them. The loss and the optimizer stay with the caller.
 *
 * <p>The check trains a model whose hidden layer is used twice (a tied weight: one tensor, two places) from copies
 * that start different on every rank, at three bucket sizes, on the notebook's ranks and, on rank 0, on 1, 3 and 4
 * ranks as threads; each run must end where one rank with the whole batch does. A wrong answer gets the first wrong
 * place: the copies after the constructor, the launches during backward, or the averaged gradients.
 */
public final class Lesson03Wrapper {
    /** Bucket sizes the check tries: one tensor or less per bucket, the lesson's, and everything in one bucket. */
    public static final long[] BUCKET_SIZES = {16 * 1024, Lesson03.BUCKET_BYTES, 4L << 20};
    /** Rank counts tried as threads on rank 0, beside the notebook's own ranks. */
    static final int[] THREAD_RANKS = {1, 3, 4};
    /** The exercise's name in the notebook's metadata and in a graded run's answers. */
    public static final String EXERCISE = "wrapper";
    /**
     * Steps of each run: a wrong average is off from the first step, and a grader compares after as many steps as
     * lesson 03's other stages ({@link Lesson03Grading#STEPS}), before float rounding can grow.
     */
    static final int STEPS = Lesson03Grading.STEPS;

    /** The student's data-parallel model, one per rank. */
    public interface Wrapper {
        /** The wrapped model's forward: nothing is exchanged on the way forward. */
        Tensor forward(Tensor x);

        /** Backward from {@code loss}, launching each bucket's all-reduce as soon as backward has finished it. */
        void backward(Tensor loss) throws Exception;

        /** When this returns, every parameter's gradient is its mean over the ranks. */
        void finish() throws Exception;
    }

    /** Makes the wrapper: blocking all-reduces go to {@code commThread}. */
    @FunctionalInterface
    public interface Factory {
        Wrapper wrap(Module model, Communicator comm, long bucketBytes, ExecutorService commThread) throws Exception;
    }

    private Lesson03Wrapper() {
    }

    /** The check's model: the lesson's MLP with its second hidden layer used twice (6 tensors, 8 places). */
    static Module tiedModel(long seed) {
        Rng rng = new Rng(seed);
        Linear hidden = new Linear(Lesson03.HIDDEN, Lesson03.HIDDEN, Device.cpu(), rng);
        return new Sequential(new Flatten(), new Linear(784, Lesson03.HIDDEN, Device.cpu(), rng), new ReLU(), hidden,
                new ReLU(), hidden, new ReLU(), new Linear(Lesson03.HIDDEN, 10, Device.cpu(), rng));
    }

    /** Stage 5 on the notebook's ranks, then (rank 0) on 1, 3 and 4 thread ranks. Collective: run it on every rank. */
    public static Check check(int rank, int size, Communicator comm, Factory factory) {
        String who = "rank " + rank + ": ";
        List<String> runs = new ArrayList<>();
        for (long bytes : BUCKET_SIZES) {
            CheckRanks.Outcome o = run(comm, factory, bytes);
            if (o.wrong() != null) return Check.wrong(who + "your wrapper is not the one rank's training yet", o.wrong());
            // a graded run: the parameters' digest at the lesson's bucket size, which the grader computes itself
            if (bytes == Lesson03.BUCKET_BYTES) Grading.record(EXERCISE, Lesson03Grading.digest(o.params()));
            runs.add(size + " ranks, " + kib(bytes));
        }
        if (rank == 0) {
            for (int n : THREAD_RANKS) {
                for (long bytes : BUCKET_SIZES) {
                    Check wrong = CheckRanks.onThreadRanks(who, size, n, comm, kib(bytes), c -> run(c, factory, bytes).wrong());
                    if (wrong != null) return wrong;
                    runs.add(n + " thread ranks, " + kib(bytes));
                }
            }
        }
        return Check.right(who + "your wrapper trains like one rank with the whole batch", "tied hidden layer reduced once,"
                + " copies made equal by the constructor, every bucket launched during backward; runs: "
                + String.join("; ", runs) + ".");
    }

    /** One run of {@link #STEPS} steps on {@code comm}'s ranks. Collective. */
    static CheckRanks.Outcome run(Communicator comm, Factory factory, long bucketBytes) {
        int rank = comm.rank(), size = comm.size();
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lesson03-wrapper-allreduce-rank-" + rank);
            t.setDaemon(true);
            return t;
        });
        Communicator own = CheckRanks.own(comm);
        Lesson03Meter meter = new Lesson03Meter(own);
        // every rank starts from its own weights: only rank 0's may survive the constructor
        try (Module net = tiedModel(Lesson03.SEED + rank); Module rank0 = tiedModel(Lesson03.SEED)) {
            Wrapper[] w = new Wrapper[1];
            String wrong = CheckRanks.agree(comm, CheckRanks.attempt(() -> {
                w[0] = factory.wrap(net, meter.comm(), bucketBytes, meter.watch(thread));
                if (w[0] == null) return "the factory returned null: return your wrapper (new MyDataParallel(...)).";
                return CheckRanks.copiesDiffer(net, rank0);
            }));
            if (wrong != null) return CheckRanks.Outcome.wrong(wrong);
            float[][] got = new float[1][];
            String trained = CheckRanks.attempt(() -> {
                got[0] = train(net, w[0], meter, rank, size, Lesson03.seed());
                if (size > 1 && meter.launchedInBackward() == 0) {
                    return "right weights, but every all-reduce started after backward ended: launch a bucket's"
                            + " all-reduce on commThread from backward's hook, as soon as its last gradient is ready;"
                            + " finish() only waits.";
                }
                double d = EquivalenceCheck.relativeDifference(got[0], reference(Lesson03.seed()));
                return d < Lesson03Grading.tolerance() ? null : String.format(Locale.ROOT, "after %d steps the weights differ from"
                        + " one rank's with the whole batch by %s (relative). The copies were equal after the constructor,"
                        + " so look at the gradients: is every bucket averaged once (the tied weight is one tensor: count"
                        + " it once), divided by comm.size(), and copied back before finish() returns?", STEPS,
                        Lesson03Diagnosis.fmt(d));
            });
            CheckRanks.quiesce(thread, comm.timeout());     // nothing of the student's in flight while the ranks agree
            wrong = CheckRanks.agree(comm, trained);
            return wrong != null ? CheckRanks.Outcome.wrong(wrong) : new CheckRanks.Outcome(null, got[0]);
        } finally {
            thread.shutdownNow();
            own.close();
        }
    }

    /** {@link #STEPS} steps of the caller's loop through the wrapper, on the shares of {@code seed}'s order. */
    private static float[] train(Module net, Wrapper w, Lesson03Meter meter, int rank, int size, long seed) throws Exception {
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        try (SGD opt = new SGD(net.parameters(), Lesson03.LR, Lesson03.MOMENTUM, 0f)) {
            for (int step = 0; step < STEPS; step++) {
                try (ArrayScope scope = ArrayScope.open(); Batch b = Lesson03.batch(Lesson03.share(step, rank, size, seed))) {
                    opt.zeroGrad();
                    meter.stepStarts();
                    Tensor loss = lossFn.forward(w.forward(Tensor.constant(b.x())), b.y());
                    meter.backwardStarts();
                    w.backward(loss);
                    meter.backwardEnds();
                    w.finish();
                    meter.synced();
                    opt.step();
                    meter.stepEnds();
                }
            }
        }
        return EquivalenceCheck.flatParameters(net);
    }

    private static final Map<Long, float[]> REFERENCES = new ConcurrentHashMap<>();

    /** One rank on the whole batch, the same steps on {@code seed}'s order: what every run must end at. */
    static float[] reference(long seed) {
        return REFERENCES.computeIfAbsent(seed, s -> {
            try (Module net = tiedModel(Lesson03.SEED)) {
                Wrapper alone = new Wrapper() {
                    public Tensor forward(Tensor x) { return net.forward(x); }
                    public void backward(Tensor loss) { loss.backward(); }
                    public void finish() { }
                };
                return train(net, alone, new Lesson03Meter(null), 0, 1, s);
            } catch (Exception e) {
                throw new IllegalStateException("the one-rank reference failed: " + e, e);
            }
        });
    }

    /** The digest every rank's run must give in a graded run with {@code seed}: computed by the grader, not the run. */
    public static double[] gradingAnswer(long seed) {
        return Lesson03Grading.digest(reference(seed));
    }

    private static String kib(long bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MiB buckets" : (bytes >> 10) + " KiB buckets";
    }
}
