package org.mpi2nccl.dist;

import java.util.List;
import java.util.Map;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Optimizer;
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
 *       backward has finished all its gradients, while backward computes the rest ({@link GradientReduction});</li>
 *   <li>each phase of a step is timed ({@link #times()}), including, on the MPI route with GPU arrays, the
 *       device-to-host copy, MPI's all-reduce and the copy back;</li>
 *   <li>on a GPU, with {@link DataParallelOptions#cudaGraphs}, a step is recorded once as CUDA graphs and replayed
 *       ({@link GraphedSteps}): the host then queues a handful of launches per step instead of every kernel. NCCL's
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
    private final Module model;
    private final Communicator comm;
    private final DataParallelOptions options;
    private final Device device;
    private final GradientBuckets buckets;
    private final GradientReduction reduction;
    private final PhaseClock clock;
    private final GraphedSteps graphed;     // null unless the options ask for CUDA graphs on a GPU
    private volatile boolean stuck;         // a step never finished on the GPU: close() must not wait for it

    private final long[] phaseNanos = new long[Phase.values().length];
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
        Backend backend = device.backend();
        ModelFingerprint.check(model, comm);
        this.buckets = new GradientBuckets(params, options.bucketBytes(), options.lastBucketBytes(), backend);
        this.clock = PhaseClock.forBackend(backend, comm.timeout().plus(GradientReduction.WAIT_MARGIN), "rank " + comm.rank(), why -> {
            // Said at once: cleaning up after a stuck GPU may itself hang, and the launcher's log must name the rank.
            stuck = true;
            System.err.println(why);
        });
        try {
            this.reduction = new GradientReduction(comm, buckets, backend, options);
        } catch (RuntimeException e) {
            buckets.close();            // the buckets hold GPU memory; nothing else is made yet
            clock.close();
            throw e;
        }
        this.graphed = options.cudaGraphs() && backend instanceof CudaBackend gpu
                ? new GraphedSteps(gpu, model, buckets, reduction, clock, options, comm.rank()) : null;
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

    /** Each gradient bucket's number of floats, in the order they are all-reduced (the last is the step's tail). */
    public long[] bucketElements() { return buckets.elements(); }

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
        // The average over one rank is the buffer itself, so no call: on a GPU a 1-rank NCCL communicator's ncclAvg is
        // not free, it left the GPU's kernels 2% slower for the rest of the process (results/gpu-2026-11-22-s7).
        if (comm.size() == 1) return;
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
        reduction.start();
        if (options.overlap()) loss.backward(reduction::onGradReady);
        else loss.backward();
        reduction.finish();
    }

    /** Averages the gradients already computed (after a plain {@code loss.backward()}), one all-reduce per bucket. */
    public void averageGradients() {
        reduction.start();
        reduction.finish();
    }

    /** What one training step produced (the arrays belong to the caller's step scope). */
    public record StepOutput(Tensor logits, Tensor loss) {}

    /**
     * One timed training step on this rank's batch: zero the gradients (per bucket), forward, loss, backward with the
     * gradients averaged over the ranks, optimizer update. Replayed from CUDA graphs when the options ask for them and
     * the step can be ({@link GraphedSteps}), else run eagerly.
     */
    public StepOutput step(Batch batch, Optimizer optimizer, SoftmaxCrossEntropyLoss lossFn) {
        StepOutput replayed = graphed == null ? null : graphed.step(batch, optimizer, lossFn);
        StepOutput out = replayed != null ? replayed : eagerStep(batch, optimizer, lossFn);
        steps++;
        return out;
    }

    private StepOutput eagerStep(Batch batch, Optimizer optimizer, SoftmaxCrossEntropyLoss lossFn) {
        buckets.zeroGradients(optimizer);
        clock.stepStart();
        Tensor logits = model.forward(Tensor.constant(batch.x()));
        Tensor loss = lossFn.forward(logits, batch.y());
        clock.phaseEnd(Phase.FORWARD);
        reduction.start();
        if (options.overlap()) loss.backward(reduction::onGradReady);
        else loss.backward();
        clock.phaseEnd(Phase.BACKWARD);
        reduction.finish();
        clock.phaseEnd(Phase.COMMUNICATION);
        optimizer.step();
        clock.phaseEnd(Phase.OPTIMIZER);
        return new StepOutput(logits, loss);
    }

    /** Steps replayed from CUDA graphs so far ({@link DataParallelOptions#cudaGraphs}; 0 without). */
    public long graphReplays() {
        return graphed == null ? 0 : graphed.replays();
    }

    /** Why this rank trains without CUDA graphs although they were asked for (null when they are used or not asked for). */
    public String graphsOff() {
        return graphed == null ? (options.cudaGraphs() && !device.isCpu() ? "not a CUDA backend" : null) : graphed.off();
    }

    /** Time spent in each phase of every {@link #step} so far (waits for the GPU to finish them). */
    public TimeBreakdown times() {
        clock.drainInto(phaseNanos);
        return reduction.times(steps, phaseNanos);
    }

    /** Frees the buckets, the timing events and the all-reduce thread (not the model or the communicator). */
    @Override
    public void close() {
        // Closing the graphs waits for their last replay, which a stuck step never ends: left to the process's exit.
        if (graphed != null && !stuck) graphed.close();
        reduction.close();
        buckets.close();
        clock.close();
    }

    @Override
    public String toString() {
        return "DataParallel[rank " + comm.rank() + " of " + comm.size() + " over " + comm.kind() + ", " + buckets.size()
                + " bucket(s), " + buckets.totalBytes() + " bytes of gradients, overlap " + options.overlap()
                + (reduction.besideNote() != null ? ", " + reduction.besideNote() : "") + "]";
    }
}
