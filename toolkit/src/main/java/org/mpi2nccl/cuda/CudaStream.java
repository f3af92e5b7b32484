package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
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

    public void synchronize() {
        context.makeCurrent();
        CudaException.check(cuStreamSynchronize(stream), "cuStreamSynchronize");
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        context.makeCurrent();
        cuStreamSynchronize(stream);
        cuStreamDestroy(stream);
    }
}
