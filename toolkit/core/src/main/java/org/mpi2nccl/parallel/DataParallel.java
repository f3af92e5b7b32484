package org.mpi2nccl.parallel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.parallel.GradientBuckets.Bucket;
import org.mpi2nccl.nn.Loss;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Data-parallel training over any {@link Communicator}: every rank holds a full copy of the model, trains on its own
 * share of each batch, and after backward the ranks average their gradients, so every rank applies the same update
 * and the copies stay identical. Lesson 03 builds it on CPU ranks over MPI (MPJ Express); lesson 05 runs the same
 * step on GPUs with NCCL. It is what the needle course notebook's mpi4py training loop does, and what PyTorch's
 * DistributedDataParallel does:
 * <ol>
 *   <li>at start, rank 0's parameters and buffers are broadcast to all ranks (after checking that every rank built
 *       the same model, {@link ModelFingerprint});</li>
 *   <li>gradients are packed into a few flat buckets ({@link GradientBuckets}, {@link Options#bucketBytes}) and each
 *       bucket is averaged with one all-reduce; a parameter shared by two layers (tied) is reduced once, a frozen one
 *       ({@code requiresGrad(false)}) not at all: it has no gradient, and the broadcast keeps it equal;</li>
 *   <li>with {@link Options#overlap} a bucket's all-reduce starts as soon as backward has finished all its
 *       gradients, while backward computes the rest.</li>
 * </ol>
 * With per-rank batch B/N on N ranks this computes the same updates as one rank with batch B (up to float rounding):
 * the average of N means over B/N examples is the mean over B. The exception is batch normalisation, whose
 * statistics here are <b>local</b>: each rank normalises with its own batch's mean and variance, as
 * DistributedDataParallel does without SyncBatchNorm, and the running statistics used for evaluation are averaged
 * over the ranks by {@link #averageBuffers()}.
 *
 * <p>This class is the whole idea and nothing more. Timing the phases of a step ({@code parallel.timing}) listens to it
 * through {@link StepListener}; how each bucket travels is a {@link CommHook} ({@link #registerCommHook}), where the
 * GPU machinery of lesson 05's experiment plugs in (NCCL ordered by CUDA events, fewer NCCL thread blocks beside
 * backward: {@code parallel.gpu}), and a CUDA graph's replay drives the averaging by hand ({@link #beginAveraging},
 * {@link #launchNext}, {@link #finishAveraging}).
 *
 * <p>Used as PyTorch's DistributedDataParallel is: the loss and the optimizer stay with the caller; backward through
 * {@link #backward} launches each bucket's all-reduce as its gradients are done, {@link #finish} waits for them.
 * {@link #step} is that loop's body in one call.
 * <pre>{@code
 * try (DataParallel dp = new DataParallel(model, comm, DataParallel.Options.defaults())) {
 *     for (Batch b : loader.epoch(e)) {
 *         dp.zeroGrad(optimizer);
 *         Tensor loss = lossFn.forward(dp.forward(Tensor.constant(b.x())), b.y());
 *         dp.backward(loss);
 *         dp.finish();                      // every rank's gradients are now the average
 *         optimizer.step();
 *     }
 * }
 * }</pre>
 */
public class DataParallel implements AutoCloseable {
    /** How much longer than the communicator's own timeout a bucket's all-reduce is waited for. */
    public static final Duration WAIT_MARGIN = Duration.ofSeconds(30);

    /**
     * Settings of the step.
     *
     * @param bucketBytes gradients are packed into flat buckets of at most this many bytes, one all-reduce per bucket
     *                    (a tensor larger than this gets a bucket of its own). Fewer, larger buckets pay the per-call
     *                    latency less often; smaller ones start reducing sooner when overlapping. Default 1 MiB.
     * @param overlap     start all-reducing a bucket as soon as backward has finished all its gradients, while
     *                    backward goes on with the rest (on a thread of its own for a communicator whose calls block
     *                    the caller, such as MPI; NCCL queues its calls on the GPU and returns). Default on.
     */
    public record Options(long bucketBytes, boolean overlap) {
        public static final long DEFAULT_BUCKET_BYTES = 1L << 20;

        public Options {
            if (bucketBytes < 4) throw new IllegalArgumentException("bucket size must be at least 4 bytes (one float), got " + bucketBytes);
        }

        public static Options defaults() {
            return new Options(DEFAULT_BUCKET_BYTES, true);
        }

        public Options bucketBytes(long bytes) {
            return new Options(bytes, overlap);
        }

        public Options overlap(boolean on) {
            return new Options(bucketBytes, on);
        }
    }

    /** What one training step produced (the arrays belong to the caller's step scope). */
    public record StepOutput(Tensor logits, Tensor loss) {}

    private final Module model;
    private final Communicator comm;
    private final Options options;
    private final Backend backend;
    private final GradientBuckets buckets;
    /** One rank: the average of one gradient is itself, so nothing is all-reduced (the single-rank baseline). */
    private final boolean alone;
    private CommHook hook;
    private final ExecutorService commThread;      // overlap on a communicator whose calls block: they run here
    private final List<Future<?>> inFlight = new ArrayList<>();
    private int nextLaunch;                         // buckets before this one are launched in this step
    private boolean averaging;
    private StepListener listener = new StepListener() {};

    /**
     * Wraps {@code model} (built on every rank, on this rank's device) and makes every rank's copy equal to rank 0's.
     * Collective: every rank of {@code comm} must call it.
     */
    public DataParallel(Module model, Communicator comm, Options options) {
        this(model, comm, options, GradientBuckets.plan(model.trainableParameters(), options.bucketBytes()));
    }

    /** With {@link Options#defaults()}. */
    public DataParallel(Module model, Communicator comm) {
        this(model, comm, Options.defaults());
    }

    /** With the buckets of {@code plan} (each list: one bucket's parameters, in all-reduce order). */
    public DataParallel(Module model, Communicator comm, Options options, List<List<Tensor>> plan) {
        this.model = model;
        this.comm = comm;
        this.options = options;
        List<Tensor> params = model.parameters();
        if (params.isEmpty()) throw new IllegalArgumentException("DataParallel: the model has no parameters to train");
        if (plan.stream().allMatch(List::isEmpty)) {
            throw new IllegalArgumentException("DataParallel: every parameter of the model is frozen (requiresGrad false):"
                    + " unfreeze the layers to train with model.requiresGrad(true) or a layer's own");
        }
        Device device = params.get(0).device();
        for (Tensor p : params) {
            if (!p.device().equals(device)) {
                throw new IllegalArgumentException("DataParallel: the model's parameters are on " + device + " and " + p.device()
                        + "; move the whole model to this rank's device");
            }
        }
        this.backend = device.backend();
        this.alone = comm.size() == 1;
        ModelFingerprint.check(model, comm);
        this.buckets = new GradientBuckets(plan, backend);
        this.hook = new AllReduceHook(comm, backend);
        // NCCL queues its collectives on a CUDA stream and returns: a host thread would have nothing to overlap.
        this.commThread = options.overlap() && !"nccl".equals(comm.kind()) ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "data-parallel-allreduce-rank-" + comm.rank());
            t.setDaemon(true);
            return t;
        }) : null;
        try {
            broadcastState();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    public Module model() { return model; }

    public Communicator communicator() { return comm; }

    public int rank() { return comm.rank(); }

    public int ranks() { return comm.size(); }

    /** The device the model lives on (its parameters' backend). */
    public Backend backend() { return backend; }

    /** The gradient buckets, in all-reduce order (their buffers are what the communicator reduces). */
    public GradientBuckets buckets() { return buckets; }

    /** Whether this is a job of one rank: then nothing is all-reduced (the average of one gradient is itself). */
    public boolean alone() { return alone; }

    /**
     * How each bucket travels from now on ({@link CommHook}; PyTorch's {@code register_comm_hook}); the plain
     * {@link AllReduceHook} until then. Every rank registers an equivalent hook, between steps. The hook is closed
     * with this step.
     */
    public void registerCommHook(CommHook h) {
        if (h == null) throw new IllegalArgumentException("comm hook is null (the plain one is new AllReduceHook(comm, backend))");
        if (averaging) throw new IllegalStateException("DataParallel: a comm hook is registered between steps, not during one");
        this.hook = h;
    }

    /** Number of gradient buckets (all-reduce calls per step). */
    public int bucketCount() { return buckets.size(); }

    /** Each gradient bucket's number of floats, in the order they are all-reduced (the last is the step's tail). */
    public long[] bucketElements() { return buckets.elements(); }

    /** Bytes of gradients all-reduced per step. */
    public long gradientBytes() { return buckets.totalBytes(); }

    /** Tells {@code l} where each step is from now on (one listener; the timing package's timer is one). */
    public void listen(StepListener l) {
        if (l == null) throw new IllegalArgumentException("listener is null");
        this.listener = l;
    }

    /** Rank 0's parameters and buffers to every rank (done at construction; call again to resynchronise). */
    public void broadcastState() {
        for (NDArray a : model.state().values()) Tensors.broadcast(comm, a, 0);
    }

    /**
     * Averages the buffers (batch-norm running mean and variance) over the ranks, so that evaluation uses the same
     * statistics everywhere. Batch statistics during training stay local (see the class comment).
     */
    public void averageBuffers() {
        // The average over one rank is the buffer itself: no call (on a GPU a 1-rank NCCL all-reduce is not free).
        if (alone) return;
        for (Map.Entry<String, NDArray> e : model.namedBuffers().entrySet()) {
            Tensors.allReduce(comm, e.getValue(), Reduction.AVG);
        }
    }

    /** Zeroes the gradients of {@code optimizer}'s parameters (a bucket's in one fill). */
    public void zeroGrad(Optimizer optimizer) {
        buckets.zeroGradients(optimizer);
    }

    /** The wrapped model's forward (PyTorch's {@code ddp(x)}): nothing is exchanged on the way forward. */
    public Tensor forward(Tensor x) {
        return model.forward(x);
    }

    /**
     * Backward from {@code loss}, with the averaging of the gradients begun: with {@link Options#overlap} each bucket's
     * all-reduce is launched as soon as backward has finished its gradients (a backward hook), else none yet. Call
     * {@link #finish} before using the gradients.
     */
    public void backward(Tensor loss) {
        beginAveraging();
        if (options.overlap()) loss.backward(this::gradientReady);     // told of every gradient as backward finishes it
        else loss.backward();
    }

    /** Launches the buckets backward did not, waits for every all-reduce of the step and unpacks the averages. */
    public void finish() {
        finishAveraging();
    }

    /**
     * One training step on this rank's batch: zero the gradients, forward, {@code lossFn}, backward with the
     * gradients averaged over the ranks, optimizer update.
     */
    public StepOutput step(Batch batch, Optimizer optimizer, Loss lossFn) {
        zeroGrad(optimizer);
        listener.stepStarted();
        Tensor logits = forward(Tensor.constant(batch.x()));
        Tensor loss = lossFn.forward(logits, batch.y());
        listener.forwardDone();
        backward(loss);
        listener.backwardDone();
        finish();
        listener.gradientsAveraged();
        optimizer.step();
        listener.optimizerDone();
        return new StepOutput(logits, loss);
    }

    // ---- averaging the gradients, one all-reduce per bucket ---------------------------------------------------------
    // Public for a caller that runs backward itself (a replayed CUDA graph): begin, launch what each piece of backward
    // completed, finish.

    /** A step's averaging begins: no gradient final yet, no bucket launched. */
    public void beginAveraging() {
        if (averaging) throw new IllegalStateException("DataParallel: a gradient averaging is already under way");
        averaging = true;
        nextLaunch = 0;
        inFlight.clear();
        for (int i = 0; i < buckets.size(); i++) buckets.get(i).ready = 0;
    }

    /** Backward has finished {@code leaf}'s gradient (overlap): launches the buckets that are now complete. */
    private void gradientReady(Tensor leaf) {
        launchNext(bucketsCompletedBy(leaf, buckets.size()));
    }

    /**
     * Counts {@code leaf}'s gradient as final and says how many buckets, from the next one to launch up to bucket
     * {@code end}, are now complete. Buckets are launched in bucket order only: every rank must issue the same
     * collectives in the same order, whatever order its backward finished them in.
     */
    public int bucketsCompletedBy(Tensor leaf, int end) {
        Bucket b = buckets.of(leaf);
        if (b == null || alone) return 0;
        b.ready++;
        int n = 0;
        while (nextLaunch + n < end && buckets.get(nextLaunch + n).complete()) n++;
        return n;
    }

    /** Launches the next {@code count} buckets through the hook's communicator for overlap. */
    public void launchNext(int count) {
        for (int k = 0; k < count; k++) launch(buckets.get(nextLaunch++), hook.beside());
    }

    /** Packs the next {@code count} buckets without launching them (a capture that launches them at every replay). */
    public void packNext(int count) {
        for (int k = 0; k < count; k++) buckets.get(nextLaunch++).pack();
    }

    /** Buckets launched (or packed) so far in this step. */
    public int launchedBuckets() {
        return nextLaunch;
    }

    /** Packs the bucket and starts its all-reduce: on the all-reduce thread when overlapping a blocking call, else here. */
    private void launch(Bucket b, Communicator via) {
        listener.bucketLaunched(b.index);
        b.pack();
        hook.beforeAllReduce();
        if (commThread != null) inFlight.add(commThread.submit(() -> allReduce(b, via)));
        else allReduce(b, via);
    }

    /** One bucket averaged over the ranks (in place), timed for the listener when the call ran. */
    private void allReduce(Bucket b, Communicator via) {
        long t0 = System.nanoTime();
        if (hook.allReduce(b, via)) listener.allReduced(via, b.buffer(), System.nanoTime() - t0);
    }

    /** Launches what backward did not, waits for every all-reduce of the step and unpacks the averaged gradients. */
    public void finishAveraging() {
        if (alone) {
            averaging = false;
            return;
        }
        try {
            // Buckets backward did not launch (overlap off, a parameter unused in this step): reduce them now, zeros included.
            launchRest();
            Duration wait = comm.timeout().plus(WAIT_MARGIN);
            for (int i = 0; i < inFlight.size(); i++) await(inFlight.get(i), i, wait);
            hook.afterAllReduces();
            for (int i = 0; i < buckets.size(); i++) buckets.get(i).unpack();
        } finally {
            inFlight.clear();
            averaging = false;
        }
    }

    /** After backward: launches the buckets not launched yet, in bucket order, as the hook groups them. */
    public void launchRest() {
        if (alone || nextLaunch >= buckets.size()) return;
        hook.launchTail(buckets.size() - nextLaunch, () -> {
            while (nextLaunch < buckets.size()) launch(buckets.get(nextLaunch++), comm);
        });
    }

    /** The step's averaging is over without {@link #finishAveraging} (a capture that ended, or failed). */
    public void endAveraging() {
        averaging = false;
    }

    private void await(Future<?> f, int bucket, Duration wait) {
        try {
            f.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) throw r;
            if (c instanceof Error err) throw err;
            throw new IllegalStateException("rank " + comm.rank() + ": all-reduce of gradient bucket " + bucket + " failed: " + c, c);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new IllegalStateException("rank " + comm.rank() + ": the all-reduce of gradient bucket " + bucket
                    + " did not finish within " + wait.toSeconds() + " s (a rank stopped or skipped a step?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("rank " + comm.rank() + ": interrupted while waiting for the gradient all-reduce", e);
        }
    }

    /** Stops the all-reduce thread and frees the buckets (not the model or the communicator). */
    @Override
    public void close() {
        if (commThread != null) commThread.shutdownNow();
        if (hook != null) hook.close();
        buckets.close();
    }

    @Override
    public String toString() {
        return "DataParallel[rank " + comm.rank() + " of " + comm.size() + " over " + comm.kind() + ", " + buckets.size()
                + " bucket(s), " + buckets.totalBytes() + " bytes of gradients, overlap " + options.overlap() + "]";
    }
}
