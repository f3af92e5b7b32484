package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;

import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;

/**
 * A bounded wait for everything queued on one GPU, made before a driver call that waits for the whole device by
 * itself: {@code cuMemFreeHost}, and {@code cuMemFree} without memory pools. Those calls have no timeout, and while
 * they wait they hold a lock of the driver that NCCL's proxy thread may need in order to finish the very copy they
 * wait for (with {@code NCCL_P2P_USE_CUDA_MEMCPY=1} both ranks of a job stopped there for good). Polling an event
 * takes no such lock, and gives up at {@link EventWait}'s limit with the GPU and the call named.
 *
 * <p>The event goes on the legacy default stream, which runs after the work of every blocking stream of the context:
 * the toolkit's stream and the streams NCCL's calls are queued on ({@code cudaStreamCreate}) are both blocking.
 */
final class IdleWait {
    private static final CUstream LEGACY_STREAM = new CUstream();

    private final CudaContext context;
    private CUevent event;

    IdleWait(CudaContext context) {
        this.context = context;
    }

    /**
     * Returns once the GPU has finished its queued work, waiting at most {@code limitNanos}; {@code false} at once
     * when an earlier wait on this GPU ran out of time and the GPU has not caught up since (its work may never
     * finish: the caller leaves its memory to the end of the process).
     *
     * @throws CudaException the work did not finish within the limit
     */
    synchronized boolean await(String before, long limitNanos) {
        int gpu = context.device.ordinal;
        // a recording in progress takes everything queued on the stream; an event there would end up in the graph
        if (context.capturing) return true;
        context.makeCurrent();
        if (event == null) {
            event = new CUevent();
            CudaException.check(cuEventCreate(event, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        }
        CudaException.check(cuEventRecord(event, LEGACY_STREAM), before);
        if (EventWait.stuck(gpu)) {
            if (cuEventQuery(event) != CUresult.CUDA_SUCCESS) return false;
            EventWait.caughtUp(gpu);
            return true;
        }
        EventWait.await(event, gpu, before, limitNanos);
        return true;
    }
}
