package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

/**
 * An extra stream, for work that may overlap the context's own stream (e.g. copying one gradient to the
 * host while the next is computed). Order it against other streams with {@link #waitFor(CudaEvent)}.
 */
public final class CudaStream implements AutoCloseable {
    private final CudaContext context;
    private final Handles.StreamHandle stream = new Handles.StreamHandle();
    private boolean closed;
    private CudaEvent done;

    public CudaStream(CudaContext context) {
        this.context = context;
        context.makeCurrent();
        CudaException.check(cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    }

    public CUstream handle() {
        return stream;
    }

    /** The raw cudaStream_t, for JavaCPP (cuBLAS, NCCL). */
    public long address() {
        return stream.address();
    }

    /** Work queued on this stream after this call waits until the GPU has passed {@code event}. */
    public void waitFor(CudaEvent event) {
        context.makeCurrent();
        CudaException.check(cuStreamWaitEvent(stream, event.handle(), 0), "cuStreamWaitEvent");
    }

    /** Waits until this stream's work is done, at most {@code -Dmpi2nccl.gpu.waitSeconds} ({@link EventWait}). */
    public void synchronize() {
        context.makeCurrent();
        if (done == null) done = new CudaEvent(context);
        done.record(stream).synchronize();
    }

    /**
     * Waits for the stream's work (bounded; past the limit it is left to finish by itself, which CUDA allows) and
     * frees it.
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            synchronize();
        } catch (CudaException e) {
            // stuck or failed work: the error that brought us here is the one to report
        }
        if (done != null) done.close();
        context.makeCurrent();
        cuStreamDestroy(stream);
    }
}
