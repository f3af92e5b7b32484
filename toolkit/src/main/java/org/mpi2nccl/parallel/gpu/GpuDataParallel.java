package org.mpi2nccl.parallel.gpu;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.StreamHandoff;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.GradientBuckets;
import org.mpi2nccl.parallel.GradientBuckets.Bucket;
import org.mpi2nccl.parallel.timing.StepTimer;
import org.mpi2nccl.parallel.timing.TimeBreakdown;
import org.mpi2nccl.parallel.timing.Timeline;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.Loss;
import org.mpi2nccl.optim.Optimizer;

/**
 * {@link DataParallel}'s step with what lesson 05's speedup experiment adds on GPUs, where a small model's step is so
 * short that the host and the GPU's scheduling decide the speedup. The step is the same (same gradients, same
 * updates); what changes is how it is queued:
 * <ul>
 *   <li>NCCL on a CUDA stream of its own is ordered with the model's stream by CUDA events ({@link StreamHandoff}), as in
 *       PyTorch DDP: backward's remaining kernels run beside the all-reduce and the host never waits for the GPU
 *       (the plain step synchronises the GPU before each all-reduce);</li>
 *   <li>the buckets left after backward are launched as one NCCL group;</li>
 *   <li>with {@link GpuOptions#overlapCtas} the buckets all-reduced beside backward go through a second communicator
 *       limited to that many CTAs, leaving backward more SMs;</li>
 *   <li>with {@link GpuOptions#lastBucketBytes} the first layers get a small last bucket of their own;</li>
 *   <li>with {@link GpuOptions#cudaGraphs} a step is recorded once as CUDA graphs and replayed ({@link GraphedSteps});</li>
 *   <li>every step is timed ({@link StepTimer}, {@link #times()}): on a GPU reading the times is also where the host
 *       waits for the GPU, at most {@code StepsAhead} steps behind, and where a step stuck on a missing rank fails.</li>
 *   <li>a {@link Timeline} may listen beside the timer ({@link #listen}, {@code Timeline.attach(dp, steps)}): on a
 *       GPU it records CUDA events, on the model's stream for the phases and on NCCL's around each bucket's
 *       all-reduce. A replayed CUDA graph has no hooks to record from, so the steps it records run eagerly (said once);
 *       replay resumes after them. Without a timeline nothing of this runs.</li>
 * </ul>
 * On the CPU only the timing applies: the step is the plain one.
 */
public class GpuDataParallel extends DataParallel {
    private final GpuOptions gpuOptions;
    private final StreamHandoff toComm;     // NCCL on a stream of its own: model stream -> NCCL stream per bucket
    private final StreamHandoff fromComm;   // ... and NCCL stream -> model stream before the optimizer
    private final Communicator beside;      // the buckets launched while backward runs: comm, or comm with fewer CTAs
    private final AtomicLong launchedBeside = new AtomicLong();
    private final StepTimer timer;
    private final GraphedSteps graphed;     // null unless the options ask for CUDA graphs on a GPU
    private volatile boolean stuck;         // a step never finished on the GPU: close() must not wait for it
    private IntConsumer cutPiece;           // recording backward in pieces: told how many buckets the piece completes
    private boolean recordingCollectives;   // recording the all-reduces too: recorded, not run, so not counted
    private Timeline timeline;              // listening beside the timer, or null (then nothing here records events)
    private boolean saidEager;              // the timeline's steps run without graphs: said once

    /** Collective: every rank of {@code comm} must call it, with the same options. */
    public GpuDataParallel(Module model, Communicator comm, DataParallel.Options options, GpuOptions gpu) {
        super(model, comm, options, plan(model.trainableParameters(), options.bucketBytes(), gpu.lastBucketBytes()));
        this.gpuOptions = gpu;
        try {
            long modelStream = backend instanceof CudaBackend g ? g.context().streamAddress() : 0;
            long commStream = !alone && comm instanceof NcclCommunicator n ? n.streamAddress() : 0;
            boolean ownStream = modelStream != 0 && commStream != 0 && commStream != modelStream;
            int device = backend.device().index();
            this.toComm = ownStream ? new StreamHandoff(device, modelStream, commStream) : null;
            this.fromComm = ownStream ? new StreamHandoff(device, commStream, modelStream) : null;
            // NCCL's CTAs each hold an SM for the whole all-reduce: beside backward, fewer of them leave backward more SMs.
            // The tail, which nothing runs beside, keeps the full communicator. Collective: every rank splits.
            this.beside = gpu.overlapCtas() > 0 && options.overlap() && !alone && comm instanceof NcclCommunicator n
                    ? n.withMaxCtas(gpu.overlapCtas()) : comm;
            this.timer = new StepTimer(this, why -> {
                // Said at once: cleaning up after a stuck GPU may itself hang, and the launcher's log must name the rank.
                stuck = true;
                System.err.println(why);
            });
            super.listen(timer);
            this.graphed = gpu.cudaGraphs() && backend instanceof CudaBackend g
                    ? new GraphedSteps(g, this, model, buckets, timer, options.overlap(), gpu.graphCollectives(), comm.rank()) : null;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * The buckets: as {@link GradientBuckets#plan}, except that with {@code lastBucketBytes} > 0 the model's first
     * parameters, up to that many bytes, get the last bucket to themselves.
     */
    static List<List<Tensor>> plan(List<Tensor> params, long bucketBytes, long lastBucketBytes) {
        List<Tensor> order = new ArrayList<>(params);
        Collections.reverse(order);
        // the longest run of the first parameters that fits; none of them or all of them: no bucket of its own
        int tail = order.size();
        long bytes = 0;
        while (tail > 0 && bytes + order.get(tail - 1).size() * 4 <= lastBucketBytes) bytes += order.get(--tail).size() * 4;
        if (tail == 0) tail = order.size();
        List<List<Tensor>> plan = GradientBuckets.fill(order.subList(0, tail), bucketBytes);
        if (tail < order.size()) plan.add(order.subList(tail, order.size()));
        return plan;
    }

    /** This step replayed from CUDA graphs when the options ask for them and the step can be, else the plain step. */
    @Override
    public StepOutput step(Batch batch, Optimizer optimizer, Loss lossFn) {
        if (graphed != null && timeline != null && timeline.recordsNextStep()) {
            if (!saidEager) {
                saidEager = true;
                System.out.println("rank " + comm.rank() + ": the steps the timeline records run without CUDA graphs (a replayed"
                        + " graph has no hooks to record from; same result); graphs are replayed again after them");
            }
            return super.step(batch, optimizer, lossFn);
        }
        StepOutput replayed = graphed == null ? null : graphed.step(batch, optimizer, lossFn);
        return replayed != null ? replayed : super.step(batch, optimizer, lossFn);
    }

    /**
     * Tells {@code l} where each step is, beside this step's own {@link StepTimer} (read with {@link #times()}); a
     * later call replaces the earlier listener, the timer stays. A {@link Timeline} ({@code Timeline.attach}) also
     * gets the GPU times of NCCL's all-reduces.
     */
    @Override
    public void listen(StepListener l) {
        if (l == null) throw new IllegalArgumentException("listener is null");
        this.timeline = l instanceof Timeline t ? t : null;
        super.listen(new Both(timer, l));
    }

    /** The timer and one more listener, told in that order. */
    private record Both(StepListener first, StepListener second) implements StepListener {
        @Override public void stepStarted() { first.stepStarted(); second.stepStarted(); }
        @Override public void forwardDone() { first.forwardDone(); second.forwardDone(); }
        @Override public void backwardDone() { first.backwardDone(); second.backwardDone(); }
        @Override public void gradientsAveraged() { first.gradientsAveraged(); second.gradientsAveraged(); }
        @Override public void optimizerDone() { first.optimizerDone(); second.optimizerDone(); }
        @Override public void bucketLaunched(int bucket) { first.bucketLaunched(bucket); second.bucketLaunched(bucket); }

        @Override
        public void allReduced(Communicator via, org.mpi2nccl.comm.CommBuffer buffer, long nanos) {
            first.allReduced(via, buffer, nanos);
            second.allReduced(via, buffer, nanos);
        }
    }

    // ---- the plain step's hooks ------------------------------------------------------------------------------------

    @Override
    protected void gradientReady(Tensor leaf) {
        if (cutPiece != null) {
            // Recording backward in pieces: a complete bucket is packed, and launched after this piece at every replay.
            int n = completeBuckets(leaf, buckets.size());
            for (int k = 0; k < n; k++) nextBucket().pack();
            if (n > 0) cutPiece.accept(n);
            return;
        }
        // Recording the all-reduces too: the last bucket is the step's communication tail, recorded after backward.
        int end = recordingCollectives ? buckets.size() - 1 : buckets.size();
        for (int n = completeBuckets(leaf, end); n > 0; n--) launch(nextBucket(), beside);
    }

    @Override
    protected void beforeAllReduce() {
        if (toComm != null) toComm.handOff();   // NCCL's stream waits for the model's, the host does not
        else super.beforeAllReduce();
    }

    @Override
    protected void allReduce(Bucket b, Communicator via) {
        // A timeline on a GPU: NCCL's call only queues the all-reduce, so its time is two events on NCCL's stream.
        long stream = timeline != null && via instanceof NcclCommunicator n ? n.streamAddress() : 0;
        long start = stream != 0 ? timeline.markOn(stream) : -1;
        if (recordingCollectives) via.allReduce(b.buffer(), Reduction.AVG);   // recorded, not run: counted at every replay
        else super.allReduce(b, via);
        if (start >= 0) timeline.allReducedOnGpu(b.bytes(), start, timeline.markOn(stream));
        if (via != comm) launchedBeside.incrementAndGet();
    }

    /** The buckets backward did not launch: through NCCL as one group (one launch), else one by one. */
    @Override
    protected void launchRest() {
        // Not grouped while a timeline records the step: a group queues its all-reduces at its end, after the events.
        boolean timed = timeline != null && timeline.recordsThisStep();
        if (comm instanceof NcclCommunicator && buckets.size() - launched() > 1 && !timed) NcclCommunicator.group(super::launchRest);
        else super.launchRest();
    }

    @Override
    protected void afterAllReduces() {
        if (fromComm != null) {
            fromComm.handOff();                 // the model's stream waits for NCCL's: the optimizer sees the averages
        } else {
            if (beside != comm) beside.synchronize();
            super.afterAllReduces();
        }
    }

    // ---- for GraphedSteps: the step's averaging, recorded or replayed ----------------------------------------------

    /** Recording backward in pieces (the all-reduces stay the communicator's calls). */
    void startRecordingPieces(IntConsumer cut) {
        startAveraging();
        this.cutPiece = cut;
    }

    /** Recording the all-reduces too: the last bucket is left to the step's tail, recorded after backward. */
    void startRecordingCollectives() {
        startAveraging();
        recordingCollectives = true;
    }

    /** The recording has its buckets (or failed): back to running steps. */
    void endRecording() {
        cutPiece = null;
        recordingCollectives = false;
        endAveraging();
    }

    /** Backward's callback while recording or replaying (the plain step's own). */
    void onGradReady(Tensor leaf) {
        gradientReady(leaf);
    }

    /** A replay begins its averaging. */
    void beginAveraging() {
        startAveraging();
    }

    /** A replay between graphs: the next {@code count} buckets, which the piece of backward just launched completed. */
    void launchNext(int count) {
        for (int k = 0; k < count; k++) launch(nextBucket(), beside);
    }

    /** A replay ends its averaging: what backward left, the wait, the unpacking. */
    void completeAveraging() {
        finishAveraging();
    }

    /** The recording's tail: the buckets not launched yet (none on one rank). */
    void launchTail() {
        if (!alone) launchRest();
    }

    int launchedBuckets() {
        return launched();
    }

    /** Whether NCCL runs on a stream of its own (then its calls can be recorded into the model stream's graphs). */
    boolean ownStream() {
        return fromComm != null;
    }

    /** Orders the model's stream after NCCL's: what the model does next sees the averaged gradients. */
    void rejoin() {
        fromComm.handOff();
    }

    // ---- what the experiment reports -------------------------------------------------------------------------------

    /** Time spent in each phase of every {@link #step} so far (waits for the GPU to finish them). */
    public TimeBreakdown times() {
        return timer.times();
    }

    /** Steps replayed from CUDA graphs so far ({@link GpuOptions#cudaGraphs}; 0 without). */
    public long graphReplays() {
        return graphed == null ? 0 : graphed.replays();
    }

    /**
     * The recorded forward graph replayed alone, back to back: microseconds per replay (NaN without CUDA graphs). Call
     * between steps; the step's own forward phase ({@link #times()}) is the same graph inside the step.
     */
    public double forwardGraphAloneMicros(int replays) {
        return graphed == null ? Double.NaN : graphed.forwardAloneMicros(replays);
    }

    /** Why this rank trains without CUDA graphs although they were asked for (null when they are used or not asked for). */
    public String graphsOff() {
        return graphed == null ? (gpuOptions.cudaGraphs() && !backend.device().isCpu() ? "not a CUDA backend" : null) : graphed.off();
    }

    /** Frees the graphs, the stream hand-offs, the CTA-limited communicator, the buckets and the timing events. */
    @Override
    public void close() {
        // Closing the graphs waits for their last replay, which a stuck step never ends: left to the process's exit.
        if (graphed != null && !stuck) graphed.close();
        if (beside != null && beside != comm) beside.close();
        if (toComm != null) toComm.close();
        if (fromComm != null) fromComm.close();
        super.close();
        if (timer != null) timer.close();
    }

    /**
     * The plain description and, where the buckets launched beside backward go through the CTA-limited communicator,
     * "N all-reduce calls beside backward through a communicator of at most K CTAs" (calls recorded into graphs counted once).
     */
    @Override
    public String toString() {
        String plain = super.toString();
        if (beside == comm) return plain;
        int ctas = ((NcclCommunicator) beside).options().maxCtas();
        return plain.substring(0, plain.length() - 1) + ", " + launchedBeside.get()
                + " all-reduce calls beside backward through a communicator of at most " + ctas + " CTAs]";
    }
}
