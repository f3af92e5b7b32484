package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;

import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUstream;

/**
 * A marker in a stream: records when the GPU got there. Two events time GPU work without counting the
 * host's launch overhead ({@link #elapsedMillis}); an event also lets one stream wait for another.
 */
public final class CudaEvent implements AutoCloseable {
    private final CudaContext context;
    private final CUevent event = new CUevent();
    private boolean closed;

    public CudaEvent(CudaContext context) {
        this.context = context;
        context.makeCurrent();
        CudaException.check(cuEventCreate(event, CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate");
    }

    /** Records the event on the context's stream. */
    public CudaEvent record() {
        return record(context.stream());
    }

    public CudaEvent record(CUstream stream) {
        context.makeCurrent();
        CudaException.check(cuEventRecord(event, stream), "cuEventRecord");
        return this;
    }

    /** Whether the GPU has passed this event's latest record (without waiting). */
    public boolean isDone() {
        context.makeCurrent();
        int r = cuEventQuery(event);
        if (r == jcuda.driver.CUresult.CUDA_ERROR_NOT_READY) return false;
        CudaException.check(r, "cuEventQuery");
        return true;
    }

    /** Waits until the GPU has passed this event, at most {@code -Dmpi2nccl.gpu.waitSeconds} ({@link EventWait}). */
    public void synchronize() {
        context.makeCurrent();
        EventWait.await(event, context.device.ordinal, "an event on GPU " + context.device.ordinal);
    }

    /** Milliseconds of GPU time between {@code start} and {@code end} (waits for {@code end}). */
    public static float elapsedMillis(CudaEvent start, CudaEvent end) {
        end.synchronize();
        float[] ms = new float[1];
        CudaException.check(cuEventElapsedTime(ms, start.event, end.event), "cuEventElapsedTime");
        return ms[0];
    }

    CUevent handle() {
        return event;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        context.makeCurrent();
        cuEventDestroy(event);
    }
}
