package org.mpi2nccl.parallel.gpu;

import java.util.Arrays;
import java.util.List;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaGraph;
import org.mpi2nccl.cuda.GraphRecording;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.nn.Dropout;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;

/**
 * The GPU work of a training step recorded as CUDA graphs (forward with the loss, backward in a few pieces,
 * optimizer), for {@link GpuOptions#cudaGraphs}. A small model's step is dozens of kernels and cuBLAS
 * calls, each costing the host microseconds; on 2 GPUs the host then sets the pace, not the GPUs. Replayed from
 * graphs a step costs the host a handful of launches. NCCL's gradient all-reduces are recorded too
 * ({@link GpuOptions#graphCollectives}, as PyTorch does when it records a whole DDP step): each starts
 * on NCCL's stream as soon as backward has completed its bucket, beside the rest of backward, with no graph
 * launch in between; the last bucket's all-reduce, the step's communication tail, is a graph of its own, so
 * each phase is still timed on its own. Without that option the all-reduces stay ordinary collective calls,
 * launched by the host between the pieces of backward. This class keeps the recording and decides which steps are
 * recorded and which replay it; {@link GraphedSteps} records and replays {@link GpuDataParallel}'s step.
 *
 * <p>A graph replays what was recorded: the batch is copied into the arrays the recording read, and a step
 * whose batch shape or optimizer differs from the recording's runs eagerly (the last, shorter batch of an epoch).
 * The learning rate is not fixed by a recording: the recorded update reads it from an array of the recording,
 * written before each replay (so the steps of a learning-rate warm-up replay too). A step is recorded after
 * {@link #STEADY_STEPS} eager steps with the same shape and optimizer. Models with dropout (a new mask each step) and optimizers other
 * than SGD (Adam's bias correction changes each step) always run eagerly. If recording fails, the reason is
 * printed once and the rank goes on eagerly: the result is the same, only slower. Not so when the recording was
 * to hold the all-reduces (whatever part of it failed): a rank going on eagerly while the others replay recorded
 * NCCL calls would hang them, so the failure stops the rank ({@link RecordingFailed}) and the launcher takes the
 * job down with it.
 */
final class StepGraphs implements AutoCloseable {
    /** Eager steps with the same batch shape and optimizer before a step is recorded. */
    static final int STEADY_STEPS = 2;

    /** What a recording fixed: a step that differs in any of these runs eagerly. */
    record Key(int[] x, int[] y, Optimizer optimizer) {
        boolean same(Key o) {
            return o != null && Arrays.equals(x, o.x) && Arrays.equals(y, o.y) && optimizer == o.optimizer;
        }
    }

    /**
     * One recording: the graphs of forward (with zeroing the gradients and the loss), of backward in pieces (after
     * piece i, {@code bucketsAfter[i]} gradient buckets are complete and their all-reduce is launched, overlapping the
     * next pieces, as in an eager step), of the optimizer; and the arrays they read and write, kept open while they
     * are replayed. With the all-reduces recorded too ({@link GpuOptions#graphCollectives}), backward is one graph
     * that also holds the all-reduces of the buckets completed during it, and {@code collectives} the rest (the
     * step's communication tail); null when the all-reduces are the communicator's ordinary calls. The recorded update
     * reads the learning rate from {@code lr} (one element), which a replay writes first where the rate changed.
     */
    record Recorded(Key key, NDArray x, NDArray y, NDArray lr, Tensor logits, Tensor loss, CudaGraph forward, List<CudaGraph> backward,
                    int[] bucketsAfter, CudaGraph collectives, CudaGraph optimizer, GraphRecording recording, ArrayScope arrays)
            implements AutoCloseable {
        @Override
        public void close() {
            recording.close();
            arrays.close();
        }
    }

    /** A recording that failed where going on eagerly is not safe (a recorded collective must be recorded on every rank). */
    static final class RecordingFailed extends IllegalStateException {
        RecordingFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Records one step's forward, backward and optimizer for a key ({@link GraphedSteps} does it: it knows the step's parts). */
    @FunctionalInterface
    interface Recorder {
        Recorded record(Key key, Batch batch);
    }

    private final CudaBackend gpu;
    private final String where;             // the GPU, as messages name it
    private final Module model;
    private final String refusal;
    private Recorded current;
    private Key last;
    private int steady;
    private String failure;
    private String unsupported;     // the last step's optimizer could not be recorded
    private long replays;

    StepGraphs(CudaBackend gpu, Module model) {
        this.gpu = gpu;
        this.where = gpu != null ? gpu.device().toString() : "the GPU";
        this.model = model;
        String why = null;
        for (Module m : model.modules()) if (m instanceof Dropout) why = "the model has dropout (a new mask every step)";
        this.refusal = why;
    }

    /**
     * The recording to replay for this step, recording it first when the steps before had the same shape and
     * optimizer; null when the step must run eagerly. {@code recorder} records the step's forward, backward and
     * optimizer on arrays of their own.
     */
    Recorded forStep(Batch batch, Optimizer optimizer, Recorder recorder) {
        if (refusal != null || failure != null || !model.isTraining()) return null;
        if (!(optimizer instanceof SGD)) {
            unsupported = "the optimizer is " + optimizer.getClass().getSimpleName() + " (only SGD's update is the same at every step)";
            return null;
        }
        Key key = new Key(batch.x().shape(), batch.y().shape(), optimizer);
        if (current != null && current.key().same(key)) {
            last = null;            // the steady count is of consecutive steps the recording could not replay
            steady = 0;
            return count(current);
        }
        if (!key.same(last)) {
            last = key;
            steady = 0;
        }
        if (++steady <= STEADY_STEPS) return null;
        if (current != null) {
            current.close();        // a new shape or optimizer for good: record again
            current = null;
        }
        try {
            current = recorder.record(key, batch);
            last = null;
            steady = 0;
            return count(current);
        } catch (RecordingFailed e) {
            failure = e.getMessage();
            throw e;
        } catch (RuntimeException e) {
            failure = e.getMessage();
            System.out.println("CUDA graphs off on " + where + ": " + failure + " (training goes on without them)");
            return null;
        }
    }

    private Recorded count(Recorded r) {
        replays++;
        return r;
    }

    CudaBackend gpu() {
        return gpu;
    }

    /** The recording replayed now, or null. */
    Recorded current() {
        return current;
    }

    /** Steps replayed from graphs so far. */
    long replays() {
        return replays;
    }


    /** Why graphs are off (refused or failed), or null. */
    String off() {
        return refusal != null ? refusal : failure != null ? failure : unsupported;
    }

    @Override
    public void close() {
        if (current != null) current.close();
        current = null;
    }
}
