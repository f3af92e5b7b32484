package org.mpi2nccl.cuda;

import java.util.ArrayList;
import java.util.List;

/**
 * Recording a GPU's stream into {@link CudaGraph}s ({@link CudaBackend#recording()}): from here on the work queued on
 * the context's stream is recorded, not run, until {@link #finish()}. {@link #cut()} ends one graph and starts the next
 * in the same recording, so that the host can do something between the pieces at every replay (a data-parallel step
 * launches a gradient bucket's all-reduce as soon as backward has computed it, between two pieces of backward).
 *
 * <p>The device blocks that the recorded work frees stay the recording's own (its replays use them as scratch, so
 * nothing else may have them meanwhile, as with PyTorch's private graph memory pools) until {@link #close()}, which
 * must come after the graphs are closed. Arrays the recorded work creates and keeps must stay open as long as its
 * graphs are replayed.
 */
public final class GraphRecording implements AutoCloseable {
    private final CudaBackend backend;
    private final CudaContext context;
    private final BlockCache<DeviceMemory> blocks;
    private final List<CudaGraph> graphs = new ArrayList<>();
    private boolean recording;

    GraphRecording(CudaBackend backend, CudaContext context, BlockCache<DeviceMemory> blocks) {
        this.backend = backend;
        this.context = context;
        this.blocks = blocks;
        backend.labelChecks().recordingStarted(this);
        CudaGraph.begin(context);
        recording = true;
    }

    /** Ends the current graph and goes on recording the next one. */
    public CudaGraph cut() {
        CudaGraph g = end(null);
        CudaGraph.begin(context);
        recording = true;
        return g;
    }

    /** Ends the recording with its last graph. */
    public CudaGraph finish() {
        CudaGraph g = end(null);
        backend.recordingEnded(this);
        return g;
    }

    /** Ends the recording after {@code failure}; always throws, saying why the recording failed. */
    public RuntimeException abort(RuntimeException failure) {
        try {
            if (recording) end(failure);
            return failure;
        } catch (RuntimeException e) {
            return e;
        } finally {
            backend.recordingEnded(this);
            close();
        }
    }

    private CudaGraph end(RuntimeException failure) {
        recording = false;
        CudaGraph g = CudaGraph.end(context, failure);
        graphs.add(g);
        return g;
    }

    BlockCache<DeviceMemory> blocks() {
        return blocks;
    }

    /** Closes the graphs recorded (waiting for their replays), then frees the recording's blocks and label checks. */
    @Override
    public void close() {
        if (recording) throw new IllegalStateException("close a GraphRecording after finish() or abort()");
        for (CudaGraph g : graphs) g.close();
        graphs.clear();
        blocks.clear();
        backend.labelChecks().recordingClosed(this);
    }
}
