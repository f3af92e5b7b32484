package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;

import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUresult;
import jcuda.driver.CUstreamCaptureMode;

/**
 * GPU work recorded once and replayed with a single launch: a CUDA graph. While {@code work} runs in
 * {@link CudaBackend#capture}, the kernels, cuBLAS calls and copies it queues on the context's stream are
 * recorded, not run; {@link #launch()} then queues all of them at the cost of one launch. A training step of
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
    private final Runnable onClose;
    private long launches;
    private boolean closed;

    private CudaGraph(CudaContext context, CUgraph graph, CUgraphExec exec, Runnable onClose) {
        this.context = context;
        this.graph = graph;
        this.exec = exec;
        this.onClose = onClose;
    }

    /** Records {@code work} from {@code context}'s stream (called by {@link CudaBackend#capture}). */
    static CudaGraph record(CudaContext context, Runnable work, Runnable onClose) {
        context.makeCurrent();
        // Relaxed: plain allocations stay allowed while recording (the stream-ordered ones would be recorded).
        CudaException.check(cuStreamBeginCapture(context.stream(), CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED),
                "starting to record a CUDA graph on GPU " + context.device.ordinal);
        context.capturing = true;
        CUgraph graph = new CUgraph();
        RuntimeException failure = null;
        try {
            work.run();
        } catch (RuntimeException e) {
            failure = e;
        }
        int ended;
        try {
            ended = cuStreamEndCapture(context.stream(), graph);
        } finally {
            context.capturing = false;
            for (Runnable r; (r = context.afterCapture.poll()) != null; ) r.run();
        }
        if (failure != null || ended != CUresult.CUDA_SUCCESS) {
            if (ended == CUresult.CUDA_SUCCESS) cuGraphDestroy(graph);
            onClose.run();
            String why = failure != null ? failure.getMessage() : CUresult.stringFor(ended);
            throw new CudaException(ended != CUresult.CUDA_SUCCESS ? ended : CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                    "recording a CUDA graph on GPU " + context.device.ordinal + " failed: " + why
                            + " (work that waits for the GPU, copies to the host or allocates on the stream cannot be recorded)");
        }
        CUgraphExec exec = new CUgraphExec();
        int r = cuGraphInstantiate(exec, graph, 0);
        if (r != CUresult.CUDA_SUCCESS) {
            cuGraphDestroy(graph);
            onClose.run();
            throw new CudaException(r, "instantiating a recorded CUDA graph on GPU " + context.device.ordinal);
        }
        return new CudaGraph(context, graph, exec, onClose);
    }

    /** Queues the recorded work on the context's stream (the host does not wait). */
    public void launch() {
        if (closed) throw new IllegalStateException("this CUDA graph is closed");
        context.makeCurrent();
        CudaException.check(cuGraphLaunch(exec, context.stream()), "launching a CUDA graph on GPU " + context.device.ordinal);
        launches++;
    }

    /** How many times {@link #launch()} queued the graph. */
    public long launches() {
        return launches;
    }

    /** Waits for the replays queued so far, then frees the graph and the memory only it used. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        context.synchronize();
        cuGraphExecDestroy(exec);
        cuGraphDestroy(graph);
        onClose.run();
    }
}
