package org.mpi2nccl.dist;

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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.StagingTimes;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaGraph;
import org.mpi2nccl.cuda.GraphRecording;
import org.mpi2nccl.cuda.StreamHandoff;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Data-parallel training over any {@link Communicator}: every rank holds a full copy of the model, trains on
 * its own share of each batch, and after backward the ranks average their gradients, so every rank applies
 * the same update and the copies stay identical. This is the seed's distributed training loop, and what
 * PyTorch's DistributedDataParallel does:
 * <ol>
 *   <li>at start, rank 0's parameters and buffers are broadcast to all ranks (after checking that every rank
 *       built the same model);</li>
 *   <li>gradients are packed into a few flat buckets ({@link DataParallelOptions#bucketBytes}) and each bucket
 *       is averaged with one all-reduce; with {@link DataParallelOptions#overlap} a bucket starts as soon as
 *       backward has finished all its gradients, while backward computes the rest;</li>
 *   <li>each phase of a step is timed ({@link #times()}), including, on the MPI route with GPU arrays, the
 *       device-to-host copy, MPI's all-reduce and the copy back;</li>
 *   <li>on a GPU, with {@link DataParallelOptions#cudaGraphs}, a step is recorded once as CUDA graphs and replayed
 *       ({@link StepGraphs}): the host then queues a handful of launches per step instead of every kernel. NCCL's
 *       all-reduces are recorded too ({@link DataParallelOptions#graphCollectives}), and with SGD the parameters whose
 *       gradients were averaged during backward are updated while the last bucket is still being all-reduced (that
 *       update is then timed in the communication phase, the last bucket's in the optimizer phase).</li>
 * </ol>
 * With per-rank batch B/N on N ranks this computes the same updates as one rank with batch B (up to float
 * rounding): the average of N means over B/N examples is the mean over B. The exception is batch
 * normalisation, whose statistics here are <b>local</b>: each rank normalises with its own batch's mean and
 * variance, as DistributedDataParallel does without SyncBatchNorm, and the running statistics used for
 * evaluation are averaged over the ranks by {@link #averageBuffers()}.
 *
 * <pre>{@code
 * try (DataParallel dp = new DataParallel(model, comm, DataParallelOptions.defaults())) {
 *     for (Batch b : loader.epoch(e)) dp.step(b, optimizer, lossFn);
 * }
 * }</pre>
 */
public final class DataParallel implements AutoCloseable {
    /** How much longer than the communicator's own timeout a bucket's all-reduce is waited for. */
    private static final Duration WAIT_MARGIN = Duration.ofSeconds(30);

    private final Module model;
    private final Communicator comm;
    private final DataParallelOptions options;
    private final Device device;
    private final Backend backend;
    private final GradientBuckets buckets;
    private final boolean queuedOnDevice;
    private final ExecutorService commThread;
    private final PhaseClock clock;
    private final StepGraphs graphs;        // null unless the options ask for CUDA graphs on a GPU
    private GraphRecording recording;       // while backward is recorded: where the pieces are cut
    private List<CudaGraph> pieces;
    private List<Integer> bucketsAfter;
    private boolean recordingCollectives;   // while a recording also records the all-reduces (options.graphCollectives)
    private final StreamHandoff toComm;     // NCCL on a stream of its own: model stream -> NCCL stream per bucket
    private final StreamHandoff fromComm;   // ... and NCCL stream -> model stream before the optimizer
    private final List<Future<?>> inFlight = new ArrayList<>();
    private final boolean alone;
    private int nextLaunch;
    private boolean reducing;
    private volatile boolean stuck;         // a step never finished on the GPU: close() must not wait for it

    private final long[] phaseNanos = new long[Phase.values().length];
    private final AtomicLong d2hNanos = new AtomicLong();
    private final AtomicLong collectiveNanos = new AtomicLong();
    private final AtomicLong h2dNanos = new AtomicLong();
    private final AtomicLong collectives = new AtomicLong();
    private final AtomicLong bytesReduced = new AtomicLong();
    private long steps;

    /**
     * Wraps {@code model} (built on every rank, on this rank's device) and makes every rank's copy equal to
     * rank 0's. Collective: every rank of {@code comm} must call it.
     */
    public DataParallel(Module model, Communicator comm, DataParallelOptions options) {
        this.model = model;
        this.comm = comm;
        this.options = options;
        List<Tensor> params = model.parameters();
        if (params.isEmpty()) throw new IllegalArgumentException("DataParallel: the model has no parameters to train");
        this.device = params.get(0).device();
        for (Tensor p : params) {
            if (!p.device().equals(device)) {
                throw new IllegalArgumentException("DataParallel: the model's parameters are on " + device + " and " + p.device()
                        + "; move the whole model to this rank's device");
            }
        }
        this.backend = device.backend();
        // NCCL queues collectives on a CUDA stream and returns: a host thread would have nothing to overlap.
        this.queuedOnDevice = "nccl".equals(comm.kind());
        // One rank: the average of one gradient is itself, so a single-rank run costs what plain training costs
        // (the baseline of the speedup experiment).
        this.alone = comm.size() == 1;
        ModelFingerprint.check(model, comm);
        this.buckets = new GradientBuckets(params, options.bucketBytes(), backend);
        this.commThread = options.overlap() && !queuedOnDevice ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "data-parallel-allreduce-rank-" + comm.rank());
            t.setDaemon(true);
            return t;
        }) : null;
        this.clock = PhaseClock.forBackend(backend, comm.timeout().plus(WAIT_MARGIN), "rank " + comm.rank(), why -> {
            // Said at once: cleaning up after a stuck GPU may itself hang, and the launcher's log must name the rank.
            stuck = true;
            System.err.println(why);
        });
        this.graphs = options.cudaGraphs() && backend instanceof CudaBackend gpu ? new StepGraphs(gpu, model) : null;
        // NCCL on its own stream: ordered with the model's stream by events, so that backward's remaining kernels
        // run beside the all-reduce (on one stream they would queue behind it) and the host never waits.
        long modelStream = backend instanceof CudaBackend gpu ? gpu.context().streamAddress() : 0;
        long commStream = !alone && comm instanceof NcclCommunicator n ? n.streamAddress() : 0;
        boolean ownStream = modelStream != 0 && commStream != 0 && commStream != modelStream;
        this.toComm = ownStream ? new StreamHandoff(device.index(), modelStream, commStream) : null;
        this.fromComm = ownStream ? new StreamHandoff(device.index(), commStream, modelStream) : null;
        try {
            broadcastState();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** With {@link DataParallelOptions#defaults()}. */
    public DataParallel(Module model, Communicator comm) {
        this(model, comm, DataParallelOptions.defaults());
    }

    public Module model() { return model; }

    public Communicator communicator() { return comm; }

    public DataParallelOptions options() { return options; }

    public int rank() { return comm.rank(); }

    public int ranks() { return comm.size(); }

    /** Number of gradient buckets (all-reduce calls per step). */
    public int bucketCount() { return buckets.size(); }

    /** Bytes of gradients all-reduced per step. */
    public long gradientBytes() { return buckets.totalBytes(); }

    /** Rank 0's parameters and buffers to every rank (done at construction; call again to resynchronise). */
    public void broadcastState() {
        for (NDArray a : model.state().values()) Tensors.broadcast(comm, a, 0);
    }

    /**
     * Averages the buffers (batch-norm running mean and variance) over the ranks, so that evaluation uses the
     * same statistics everywhere. Batch statistics during training stay local (see the class comment).
     */
    public void averageBuffers() {
        for (Map.Entry<String, NDArray> e : model.namedBuffers().entrySet()) {
            Tensors.allReduce(comm, e.getValue(), Reduction.AVG);
        }
    }

    /** One forward pass of the local model. */
    public Tensor forward(Tensor x) {
        return model.forward(x);
    }

    /** Backward from the local loss, then gradients averaged over the ranks (overlapped when the options say so). */
    public void backward(Tensor loss) {
        startReduction();
        if (options.overlap()) loss.backward(this::onGradReady);
        else loss.backward();
        finishReduction();
    }

    /** Averages the gradients already computed (after a plain {@code loss.backward()}), one all-reduce per bucket. */
    public void averageGradients() {
        startReduction();
        finishReduction();
    }

    /** What one training step produced (the arrays belong to the caller's step scope). */
    public record StepOutput(Tensor logits, Tensor loss) {}

    /**
     * One timed training step on this rank's batch: zero the gradients (per bucket), forward, loss, backward with the
     * gradients averaged over the ranks, optimizer update.
     */
    public StepOutput step(Batch batch, Optimizer optimizer, SoftmaxCrossEntropyLoss lossFn) {
        StepGraphs.Recorded recorded = graphs == null ? null
                : graphs.forStep(batch, optimizer, (key, b) -> record(key, b, optimizer, lossFn));
        if (recorded != null) return replay(recorded, batch);
        zeroGradients(optimizer);
        clock.stepStart();
        Tensor logits = model.forward(Tensor.constant(batch.x()));
        Tensor loss = lossFn.forward(logits, batch.y());
        clock.phaseEnd(Phase.FORWARD);
        startReduction();
        if (options.overlap()) loss.backward(this::onGradReady);
        else loss.backward();
        clock.phaseEnd(Phase.BACKWARD);
        finishReduction();
        clock.phaseEnd(Phase.COMMUNICATION);
        optimizer.step();
        clock.phaseEnd(Phase.OPTIMIZER);
        steps++;
        return new StepOutput(logits, loss);
    }

    /**
     * Records this step's GPU work as graphs on arrays of their own (nothing runs): zeroing the gradients, forward and
     * loss; backward, cut wherever a gradient bucket becomes complete (with overlap on); the optimizer. The all-reduces
     * are recorded too with {@link DataParallelOptions#graphCollectives} (then backward is not cut: it is one graph with
     * the all-reduces of the buckets it completes, and the last bucket's all-reduce a graph of its own); without, they
     * stay ordinary calls of the communicator, made between the pieces at every replay.
     */
    private StepGraphs.Recorded record(StepGraphs.Key key, Batch batch, Optimizer optimizer, SoftmaxCrossEntropyLoss lossFn) {
        CudaBackend gpu = graphs.gpu();
        // Whether this recording will hold NCCL's calls: then any failure of it, even before the first call, must stop
        // the rank (a rank going on eagerly while the others replay recorded all-reduces would hang them).
        boolean withCollectives = options.graphCollectives() && fromComm != null;
        ArrayScope arrays = ArrayScope.open();
        GraphRecording rec = null;
        try {
            NDArray x = batch.x().copy(), y = batch.y().copy();
            rec = gpu.recording();
            zeroGradients(optimizer);
            Tensor logits = model.forward(Tensor.constant(x));
            Tensor loss = lossFn.forward(logits, y);
            CudaGraph forward = rec.cut();
            recording = rec;
            // NCCL's calls recorded too: backward becomes one graph holding the all-reduces of the buckets it completes
            // (on the NCCL stream, joined to the recording by the hand-off events), the last bucket a graph of its own.
            recordingCollectives = withCollectives;
            pieces = new ArrayList<>();
            bucketsAfter = new ArrayList<>();
            startReduction();
            if (options.overlap()) loss.backward(this::onGradReady);
            else loss.backward();
            recording = null;
            CudaGraph collectives = null;
            Predicate<Tensor> inTail = null;
            if (recordingCollectives) {
                if (nextLaunch > 0) fromComm.handOff();     // the NCCL stream rejoins the recorded one before the cut
                pieces.add(rec.cut());
                bucketsAfter.add(0);
                // While the tail's all-reduce runs on NCCL's stream, the parameters whose gradients are averaged already
                // are updated on the model's stream (an SGD step in two parts is the same step): less after the tail.
                if (nextLaunch > 0 && optimizer.stepsInParts()) inTail = buckets.paramsFrom(nextLaunch);
                launchTail();
                if (inTail != null) optimizer.step(inTail.negate());
                fromComm.handOff();
                for (GradientBucket b : buckets.buckets) b.unpack();
                collectives = rec.cut();
            } else {
                pieces.add(rec.cut());
                bucketsAfter.add(0);
            }
            reducing = false;
            recordingCollectives = false;
            if (inTail != null) optimizer.step(inTail);
            else optimizer.step();
            CudaGraph update = rec.finish();
            int[] after = bucketsAfter.stream().mapToInt(Integer::intValue).toArray();
            return new StepGraphs.Recorded(key, x, y, logits, loss, forward, List.copyOf(pieces), after, collectives, update, rec,
                    arrays.detach());
        } catch (RuntimeException e) {
            recording = null;
            reducing = false;
            RuntimeException why = rec != null ? rec.abort(e) : e;
            arrays.close();
            recordingCollectives = false;
            if (withCollectives) {
                // Whether an NCCL call is recorded must be the same on every rank: one that goes on eagerly while the
                // others replay would hang them. So this rank stops, and the launcher takes the job down with it.
                throw new StepGraphs.RecordingFailed("rank " + comm.rank() + ": recording a training step with its all-reduces as CUDA"
                        + " graphs failed: " + why.getMessage() + ". Every rank must record its NCCL calls alike, so the job stops;"
                        + " run without recording them (DataParallelOptions.graphCollectives(false), `mpi2nccl run"
                        + " --no-graph-collectives`) or without graphs (--no-cuda-graphs)", why);
            }
            throw why;
        }
    }

    /** Recording backward: the buckets complete at this point end the current piece; they are reduced after it at every replay. */
    private void cutForBuckets(int complete) {
        pieces.add(recording.cut());
        bucketsAfter.add(complete);
    }

    /** One step replayed from its graphs: the batch copied in, the phases launched and timed as in an eager step. */
    private StepOutput replay(StepGraphs.Recorded g, Batch batch) {
        g.x().assign(batch.x());
        g.y().assign(batch.y());
        clock.stepStart();
        g.forward().launch();
        clock.phaseEnd(Phase.FORWARD);
        if (g.collectives() != null) {
            for (CudaGraph piece : g.backward()) piece.launch();
            clock.phaseEnd(Phase.BACKWARD);
            g.collectives().launch();
            collectives.addAndGet(buckets.size());
            bytesReduced.addAndGet(buckets.totalBytes());
        } else {
            startReduction();
            for (int i = 0; i < g.backward().size(); i++) {
                g.backward().get(i).launch();
                for (int k = 0; k < g.bucketsAfter()[i]; k++) launch(buckets.buckets.get(nextLaunch++));
            }
            clock.phaseEnd(Phase.BACKWARD);
            finishReduction();
        }
        clock.phaseEnd(Phase.COMMUNICATION);
        g.optimizer().launch();
        clock.phaseEnd(Phase.OPTIMIZER);
        steps++;
        return new StepOutput(g.logits(), g.loss());
    }

    /** Steps replayed from CUDA graphs so far ({@link DataParallelOptions#cudaGraphs}; 0 without). */
    public long graphReplays() {
        return graphs == null ? 0 : graphs.replays();
    }

    /** Why this rank trains without CUDA graphs although they were asked for (null when they are used or not asked for). */
    public String graphsOff() {
        return graphs == null ? (options.cudaGraphs() && !device.isCpu() ? "not a CUDA backend" : null) : graphs.off();
    }

    /**
     * What {@code optimizer.zeroGrad()} does, bucket by bucket: every model parameter's gradient (a bucket whose
     * gradients are all its views is one fill) and those of the optimizer's parameters outside the model.
     */
    private void zeroGradients(Optimizer optimizer) {
        for (GradientBucket b : buckets.buckets) b.zeroGradients();
        for (Tensor p : optimizer.params()) if (buckets.of(p) == null) p.zeroGrad();
    }

    /** Time spent in each phase of every {@link #step} so far (waits for the GPU to finish them). */
    public TimeBreakdown times() {
        clock.drainInto(phaseNanos);
        long comm = phaseNanos[Phase.COMMUNICATION.ordinal()];
        return new TimeBreakdown(steps, phaseNanos[Phase.FORWARD.ordinal()], phaseNanos[Phase.BACKWARD.ordinal()], comm,
                phaseNanos[Phase.OPTIMIZER.ordinal()], d2hNanos.get(),
                // Collectives queued on the GPU take no host time: their time is the communication phase.
                queuedOnDevice ? comm : collectiveNanos.get(), h2dNanos.get(), collectives.get(), bytesReduced.get());
    }

    // ---- the gradient all-reduce -------------------------------------------------------------------------------

    private void startReduction() {
        if (reducing) throw new IllegalStateException("DataParallel: a gradient reduction is already under way");
        reducing = true;
        nextLaunch = 0;
        inFlight.clear();
        for (GradientBucket b : buckets.buckets) b.ready = 0;
    }

    /** Called by backward for each leaf whose gradient is final. */
    private void onGradReady(Tensor leaf) {
        GradientBucket b = buckets.of(leaf);
        if (b == null || alone) return;
        b.ready++;
        // Launch in bucket order only: every rank must issue the same collectives in the same order.
        // Recording the all-reduces too: the last bucket is the step's communication tail, recorded after backward.
        int last = recordingCollectives ? buckets.size() - 1 : buckets.size();
        int complete = 0;
        while (nextLaunch < last && buckets.buckets.get(nextLaunch).ready == buckets.buckets.get(nextLaunch).params.size()) {
            GradientBucket done = buckets.buckets.get(nextLaunch++);
            if (recording == null || recordingCollectives) {
                launch(done);
            } else {
                done.pack();
                complete++;
            }
        }
        if (complete > 0) cutForBuckets(complete);
    }

    private void launch(GradientBucket b) {
        b.pack();
        if (toComm != null) toComm.handOff();
        else if (!device.isCpu() && !options.commOnComputeStream()) backend.synchronize();
        if (commThread != null) inFlight.add(commThread.submit(() -> reduce(b)));
        else reduce(b);
    }

    private void reduce(GradientBucket b) {
        long t0 = System.nanoTime();
        comm.allReduce(b.buffer(), Reduction.AVG);
        if (recordingCollectives) return;       // recorded, not run: counted at every replay
        long t1 = System.nanoTime();
        StagingTimes st = Staging.of(comm);
        if (st != null && b.buffer().onDevice()) {
            d2hNanos.addAndGet(st.deviceToHostNanos());
            collectiveNanos.addAndGet(st.collectiveNanos());
            h2dNanos.addAndGet(st.hostToDeviceNanos());
        } else {
            collectiveNanos.addAndGet(t1 - t0);
        }
        collectives.incrementAndGet();
        bytesReduced.addAndGet(b.bytes());
    }

    /**
     * After backward, the buckets it did not launch: through NCCL as one group (one launch), else one by one. Every
     * step path ends its reduction here (eager, replayed, recorded with the all-reduces), so all of them issue the same
     * NCCL calls; the MPI routes reduce one bucket at a time as before.
     */
    private void launchTail() {
        if (alone) return;
        if (comm instanceof NcclCommunicator && buckets.size() - nextLaunch > 1) NcclCommunicator.group(this::launchRemaining);
        else launchRemaining();
    }

    /** Launches the buckets not launched yet, in bucket order. */
    private void launchRemaining() {
        while (nextLaunch < buckets.size()) launch(buckets.buckets.get(nextLaunch++));
    }

    private void finishReduction() {
        if (alone) {
            reducing = false;
            return;
        }
        try {
            // Buckets backward did not launch (overlap off, the tail of a replay between graphs, a parameter unused in
            // this step): reduce them now, zeros included.
            launchTail();
            Duration wait = comm.timeout().plus(WAIT_MARGIN);
            for (int i = 0; i < inFlight.size(); i++) await(inFlight.get(i), i, wait);
            if (fromComm != null) fromComm.handOff();
            else if (!options.commOnComputeStream()) comm.synchronize();
            for (GradientBucket b : buckets.buckets) b.unpack();
        } finally {
            inFlight.clear();
            reducing = false;
        }
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

    /** Frees the buckets, the timing events and the all-reduce thread (not the model or the communicator). */
    @Override
    public void close() {
        // Closing the graphs waits for their last replay, which a stuck step never ends: left to the process's exit.
        if (graphs != null && !stuck) graphs.close();
        if (commThread != null) commThread.shutdownNow();
        if (toComm != null) toComm.close();
        if (fromComm != null) fromComm.close();
        buckets.close();
        clock.close();
    }

    @Override
    public String toString() {
        return "DataParallel[rank " + comm.rank() + " of " + comm.size() + " over " + comm.kind() + ", " + buckets.size()
                + " bucket(s), " + buckets.totalBytes() + " bytes of gradients, overlap " + options.overlap() + "]";
    }
}
