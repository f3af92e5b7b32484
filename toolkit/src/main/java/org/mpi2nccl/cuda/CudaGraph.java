package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphGetNodes;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;

import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUresult;
import jcuda.driver.CUstreamCaptureMode;

/**
 * GPU work recorded once and replayed with a single launch: a CUDA graph. While a {@link GraphRecording} is
 * open, the kernels, cuBLAS calls and copies queued on the context's stream are recorded, not run; {@link #launch()} then queues all of them at the cost of one launch. A training step of
 * a small model queues dozens of kernels, each costing the host microseconds, and the GPU finishes each
 * faster than the host queues the next; replayed from a graph, the GPU runs the step back to back.
 *
 * <p>A graph replays exactly what was recorded: the same kernels on the same addresses with the same scalar
 * arguments. New inputs must be copied into the arrays the recording read, and anything the host decided
 * during the recording (a learning rate, a shape) is fixed until the graph is recorded again. Recording fails,
 * with the reason, when the work waits for the GPU or copies to the host.
 */
public final class CudaGraph implements AutoCloseable {
    private final CudaContext context;
    private final CUgraph graph;
    private final CUgraphExec exec;
    private final long nodes;
    private boolean closed;

    private CudaGraph(CudaContext context, CUgraph graph, CUgraphExec exec, long nodes) {
        this.context = context;
        this.graph = graph;
        this.exec = exec;
        this.nodes = nodes;
    }

    /** Starts recording {@code context}'s stream ({@link GraphRecording}). */
    static void begin(CudaContext context) {
        context.makeCurrent();
        // Relaxed: plain allocations stay allowed while recording (the stream-ordered ones would be recorded).
        CudaException.check(cuStreamBeginCapture(context.stream(), CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED),
                "starting to record a CUDA graph on GPU " + context.device.ordinal);
        context.capturing = true;
    }

    /**
     * Ends the recording begun by {@link #begin}: the recorded graph, ready to launch; with {@code failure} (what the
     * recorded work threw) or when the driver refuses the recording, an exception that says why.
     */
    static CudaGraph end(CudaContext context, RuntimeException failure) {
        CUgraph graph = new CUgraph();
        int ended;
        try {
            ended = cuStreamEndCapture(context.stream(), graph);
        } finally {
            context.capturing = false;
            for (Runnable r; (r = context.afterCapture.poll()) != null; ) r.run();
        }
        if (failure != null || ended != CUresult.CUDA_SUCCESS) {
            if (ended == CUresult.CUDA_SUCCESS) cuGraphDestroy(graph);
            String why = failure != null ? failure.getMessage() : CUresult.stringFor(ended);
            throw new CudaException(ended != CUresult.CUDA_SUCCESS ? ended : CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                    "recording a CUDA graph on GPU " + context.device.ordinal + " failed: " + why
                            + " (work that waits for the GPU, copies to the host or allocates on the stream cannot be recorded)");
        }
        long[] nodes = {0};
        CudaException.check(cuGraphGetNodes(graph, null, nodes), "counting the nodes of a recorded CUDA graph");
        if (nodes[0] == 0) return new CudaGraph(context, graph, null, 0);     // nothing to instantiate
        CUgraphExec exec = new CUgraphExec();
        int r = cuGraphInstantiate(exec, graph, 0);
        if (r != CUresult.CUDA_SUCCESS) {
            cuGraphDestroy(graph);
            throw new CudaException(r, "instantiating a recorded CUDA graph on GPU " + context.device.ordinal);
        }
        return new CudaGraph(context, graph, exec, nodes[0]);
    }

    /** Queues the recorded work on the context's stream (the host does not wait). */
    public void launch() {
        if (closed) throw new IllegalStateException("this CUDA graph is closed");
        if (nodes == 0) return;         // a piece cut where nothing was recorded since the last cut
        context.makeCurrent();
        CudaException.check(cuGraphLaunch(exec, context.stream()), "launching a CUDA graph on GPU " + context.device.ordinal);
    }



    /** Waits for the replays queued so far, then frees the graph (the memory it used belongs to its {@link GraphRecording}). */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        context.synchronize();
        if (exec != null) cuGraphExecDestroy(exec);
        cuGraphDestroy(graph);
    }
}
