package org.mpi2nccl.parallel.gpu;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.Set;
import java.util.function.Predicate;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaGraph;
import org.mpi2nccl.cuda.GraphRecording;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.parallel.DataParallel.StepOutput;
import org.mpi2nccl.parallel.GradientBuckets;
import org.mpi2nccl.parallel.timing.StepTimer;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.Loss;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;

/**
 * {@link GpuDataParallel}'s training step recorded once as CUDA graphs and replayed ({@link GpuOptions#cudaGraphs}):
 * the host then queues a handful of launches per step instead of every kernel. {@link StepGraphs} decides which steps
 * are recorded and which replay; this class records a step's parts (with or without NCCL's all-reduces inside,
 * {@link GpuOptions#graphCollectives}) and replays them, timed phase by phase as an eager step is.
 */
final class GraphedSteps implements AutoCloseable {
    private final StepGraphs graphs;
    private final GpuDataParallel dp;
    private final Module model;
    private final GradientBuckets buckets;
    private final StepTimer timer;
    private final boolean overlap;
    private final boolean graphCollectives;
    private final int rank;
    private float lastLr = Float.NaN;       // the rate in the current recording's array

    GraphedSteps(CudaBackend gpu, GpuDataParallel dp, Module model, GradientBuckets buckets, StepTimer timer, boolean overlap,
                 boolean graphCollectives, int rank) {
        this.graphs = new StepGraphs(gpu, model);
        this.dp = dp;
        this.model = model;
        this.buckets = buckets;
        this.timer = timer;
        this.overlap = overlap;
        this.graphCollectives = graphCollectives;
        this.rank = rank;
    }

    /** This step replayed from its graphs (recorded first when the steps before it were alike); null: run it eagerly. */
    StepOutput step(Batch batch, Optimizer optimizer, Loss lossFn) {
        StepGraphs.Recorded recorded = graphs.forStep(batch, optimizer, (key, b) -> record(key, b, optimizer, lossFn));
        return recorded == null ? null : replay(recorded, batch, optimizer);
    }

    /**
     * Records this step's GPU work as graphs on arrays of their own (nothing runs): zeroing the gradients, forward and
     * loss; backward, cut wherever a gradient bucket becomes complete (with overlap on); the optimizer. The all-reduces
     * are recorded too with {@link GpuOptions#graphCollectives} (then backward is not cut: it is one graph with
     * the all-reduces of the buckets it completes, and the last bucket's all-reduce a graph of its own); without, they
     * stay ordinary calls of the communicator, made between the pieces at every replay.
     */
    private StepGraphs.Recorded record(StepGraphs.Key key, Batch batch, Optimizer optimizer, Loss lossFn) {
        // Whether this recording will hold NCCL's calls: then any failure of it, even before the first call, must stop
        // the rank (a rank going on eagerly while the others replay recorded all-reduces would hang them).
        boolean withCollectives = graphCollectives && dp.ownStream();
        ArrayScope arrays = ArrayScope.open();
        GraphRecording rec = null;
        try {
            NDArray x = batch.x().copy(), y = batch.y().copy();
            // the rate the recorded update reads: written before a replay where it changed (a warm-up), not fixed here
            NDArray lr = NDArray.scalar(x.device(), optimizer.lr());
            SGD sgd = (SGD) optimizer;      // StepGraphs records SGD only
            GraphRecording recording = rec = graphs.gpu().recording();
            buckets.zeroGradients(optimizer);
            Tensor logits = model.forward(Tensor.constant(x));
            Tensor loss = lossFn.forward(logits, y);
            CudaGraph forward = recording.cut();
            List<CudaGraph> pieces = new ArrayList<>();
            List<Integer> bucketsAfter = new ArrayList<>();
            // NCCL's calls recorded too: backward becomes one graph holding the all-reduces of the buckets it completes
            // (on the NCCL stream, joined to the recording by the hand-off events), the last bucket a graph of its own.
            dp.beginAveraging();
            dp.recordingCollectives(withCollectives);
            IntConsumer cut = complete -> {
                pieces.add(recording.cut());        // the buckets complete here are reduced after this piece at every replay
                bucketsAfter.add(complete);
            };
            if (overlap && withCollectives) loss.backward(dp::recordCollectives);
            else if (overlap) loss.backward(leaf -> dp.recordPiece(leaf, cut));
            else loss.backward();
            CudaGraph collectives = null;
            Predicate<Tensor> inTail = null;
            if (withCollectives) {
                boolean launched = dp.launchedBuckets() > 0;
                if (launched) dp.rejoin();      // the NCCL stream rejoins the recorded one before the cut
                pieces.add(recording.cut());
                bucketsAfter.add(0);
                // While the tail's all-reduce runs on NCCL's stream, the parameters whose gradients are averaged already
                // are updated on the model's stream (an SGD step in two parts is the same step): less after the tail.
                if (launched && optimizer.stepsInParts()) inTail = paramsFrom(dp.launchedBuckets());
                dp.launchRest();
                if (inTail != null) sgd.step(inTail.negate(), lr);
                dp.rejoin();
                for (int i = 0; i < buckets.size(); i++) buckets.get(i).unpack();
                collectives = recording.cut();
            } else {
                pieces.add(recording.cut());
                bucketsAfter.add(0);
            }
            endRecording();
            sgd.step(inTail != null ? inTail : p -> true, lr);
            CudaGraph update = recording.finish();
            int[] after = bucketsAfter.stream().mapToInt(Integer::intValue).toArray();
            lastLr = optimizer.lr();
            return new StepGraphs.Recorded(key, x, y, lr, logits, loss, forward, List.copyOf(pieces), after, collectives, update,
                    recording, arrays.detach());
        } catch (RuntimeException e) {
            endRecording();
            RuntimeException why = rec != null ? rec.abort(e) : e;
            arrays.close();
            if (withCollectives) {
                // Whether an NCCL call is recorded must be the same on every rank: one that goes on eagerly while the
                // others replay would hang them. So this rank stops, and the launcher takes the job down with it.
                throw new StepGraphs.RecordingFailed("rank " + rank + ": recording a training step with its all-reduces as CUDA"
                        + " graphs failed: " + why.getMessage() + ". Every rank must record its NCCL calls alike, so the job stops;"
                        + " run without recording them (GpuOptions.graphCollectives(false), `mpi2nccl run"
                        + " --no-graph-collectives`) or without graphs (--no-cuda-graphs)", why);
            }
            throw why;
        }
    }

    /**
     * One step replayed from its graphs: the batch copied in (and the learning rate, where it changed since the last
     * step), the phases launched and timed as in an eager step.
     */
    private StepOutput replay(StepGraphs.Recorded g, Batch batch, Optimizer optimizer) {
        g.x().assign(batch.x());
        g.y().assign(batch.y());
        if (optimizer.lr() != lastLr) {
            g.lr().fill(optimizer.lr());        // queued before this step's graphs: the previous replay has read its rate
            lastLr = optimizer.lr();
        }
        timer.stepStarted();
        g.forward().launch();
        timer.forwardDone();
        if (g.collectives() != null) {
            for (CudaGraph piece : g.backward()) piece.launch();
            timer.backwardDone();
            g.collectives().launch();
            timer.countRecorded(buckets.size(), buckets.totalBytes());
        } else {
            // The all-reduces as the communicator's calls: each bucket after the piece of backward that completes it.
            dp.beginAveraging();
            for (int i = 0; i < g.backward().size(); i++) {
                g.backward().get(i).launch();
                dp.launchNext(g.bucketsAfter()[i]);
            }
            timer.backwardDone();
            dp.finishAveraging();
        }
        timer.gradientsAveraged();
        g.optimizer().launch();
        timer.optimizerDone();
        return new StepOutput(g.logits(), g.loss());
    }

    /** The recording has its buckets (or failed): back to running steps. */
    private void endRecording() {
        dp.recordingCollectives(false);
        dp.endAveraging();
    }

    /** Whether a tensor is a parameter of bucket {@code first} or a later one. */
    private Predicate<Tensor> paramsFrom(int first) {
        Set<Tensor> in = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = first; i < buckets.size(); i++) in.addAll(buckets.get(i).params());
        return in::contains;
    }

    /** The recorded forward graph of the step shape replayed last, or null before any recording. */
    CudaGraph currentForward() {
        StepGraphs.Recorded g = graphs.current();
        return g == null ? null : g.forward();
    }

    /** Steps replayed from graphs so far. */
    long replays() {
        return graphs.replays();
    }

    /** Why graphs are off (refused or failed), or null. */
    String off() {
        return graphs.off();
    }

    /** Frees the recording (waits for its last replay). */
    @Override
    public void close() {
        graphs.close();
    }
}
