package org.mpi2nccl.parallel.gpu;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.IntConsumer;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.GradientBuckets;
import org.mpi2nccl.parallel.StepListener;
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
 *   <li>the buckets travel through {@link NcclStreamHook}, the step's comm hook: NCCL on a CUDA stream of its own,
 *       ordered with the model's stream by CUDA events, as in PyTorch DDP; the buckets left after backward as one NCCL
 *       group; with {@link GpuOptions#overlapCtas} the buckets beside backward through a communicator of fewer CTAs;</li>
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
    private final NcclStreamHook hook;
    private final StepTimer timer;
    private final GraphedSteps graphed;     // null unless the options ask for CUDA graphs on a GPU
    private volatile boolean stuck;         // a step never finished on the GPU: close() must not wait for it
    private Timeline timeline;              // listening beside the timer, or null (then nothing here records events)
    private boolean saidEager;              // the timeline's steps run without graphs: said once

    /** Collective: every rank of {@code comm} must call it, with the same options. */
    public GpuDataParallel(Module model, Communicator comm, DataParallel.Options options, GpuOptions gpu) {
        super(model, comm, options, plan(model.trainableParameters(), options.bucketBytes(), gpu.lastBucketBytes()));
        this.gpuOptions = gpu;
        NcclStreamHook h = null;
        StepTimer t = null;
        try {
            // Collective with overlap CTAs on NCCL: every rank splits its communicator.
            h = new NcclStreamHook(comm, backend(), alone(), options.overlap(), gpu.overlapCtas());
            registerCommHook(h);
            t = new StepTimer(this, why -> {
                // Said at once: cleaning up after a stuck GPU may itself hang, and the launcher's log must name the rank.
                stuck = true;
                System.err.println(why);
            });
            super.listen(t);
            this.graphed = gpu.cudaGraphs() && backend() instanceof CudaBackend g
                    ? new GraphedSteps(g, this, model, buckets(), t, options.overlap(), gpu.graphCollectives(), comm.rank()) : null;
        } catch (RuntimeException e) {
            this.hook = h;
            this.timer = t;
            close();
            throw e;
        }
        this.hook = h;
        this.timer = t;
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
                System.out.println("rank " + rank() + ": the steps the timeline records run without CUDA graphs (a replayed"
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
        hook.timeline(timeline);
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

    // ---- for GraphedSteps: the step's averaging, recorded or replayed ----------------------------------------------

    /**
     * Backward's callback while recording in pieces: the buckets a gradient completes are packed (not launched), and
     * {@code cut} is told how many, so that the replay launches them after this piece of backward.
     */
    void recordPiece(Tensor leaf, IntConsumer cut) {
        int n = bucketsCompletedBy(leaf, buckets().size());
        packNext(n);
        if (n > 0) cut.accept(n);
    }

    /**
     * Backward's callback while recording the all-reduces too: the buckets it completes are launched (recorded), all
     * but the last, which is the step's communication tail, recorded after backward.
     */
    void recordCollectives(Tensor leaf) {
        launchNext(bucketsCompletedBy(leaf, buckets().size() - 1));
    }

    /** A capture of the all-reduces begins or ends: recorded calls are not timed (they run at every replay). */
    void recordingCollectives(boolean on) {
        hook.recording(on);
    }

    /** Whether NCCL runs on a stream of its own (then its calls can be recorded into the model stream's graphs). */
    boolean ownStream() {
        return hook.ownStream();
    }

    /** Orders the model's stream after NCCL's: what the model does next sees the averaged gradients. */
    void rejoin() {
        hook.rejoin();
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
     * The recorded forward graph (zeroing the gradients, forward, loss) of the step shape replayed last, or null without
     * CUDA graphs or before the first recording. A replay runs on the recorded arrays and, in training mode, moves the
     * batch-norm running statistics.
     */
    public org.mpi2nccl.cuda.CudaGraph forwardGraph() {
        return graphed == null ? null : graphed.currentForward();
    }

    /** Why this rank trains without CUDA graphs although they were asked for (null when they are used or not asked for). */
    public String graphsOff() {
        return graphed == null ? (gpuOptions.cudaGraphs() && !backend().device().isCpu() ? "not a CUDA backend" : null) : graphed.off();
    }

    /** Frees the graphs, the stream hand-offs, the CTA-limited communicator, the buckets and the timing events. */
    @Override
    public void close() {
        // Closing the graphs waits for their last replay, which a stuck step never ends: left to the process's exit.
        if (graphed != null && !stuck) graphed.close();
        super.close();          // the hook too
        if (timer != null) timer.close();
    }

    /**
     * The plain description and, where the buckets launched beside backward go through the CTA-limited communicator,
     * "N all-reduce calls beside backward through a communicator of at most K CTAs" (calls recorded into graphs counted once).
     */
    @Override
    public String toString() {
        String plain = super.toString();
        int ctas = hook == null ? 0 : hook.besideCtas();
        if (ctas == 0) return plain;
        return plain.substring(0, plain.length() - 1) + ", " + hook.launchedBeside()
                + " all-reduce calls beside backward through a communicator of at most " + ctas + " CTAs]";
    }
}
