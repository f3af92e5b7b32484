package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuEventQuery;

import java.util.concurrent.locks.LockSupport;
import jcuda.driver.CUevent;
import jcuda.driver.CUresult;

/**
 * Waiting for the GPU to pass an event, with a deadline: a GPU stuck behind a collective whose peer rank
 * stopped would otherwise block the host forever ({@code cuEventSynchronize} has no timeout). Spins for up to
 * {@link #SPIN_NANOS} (a training step's wait, as {@code cuStreamSynchronize} spins by default: a sleep wakes late
 * by the timer slack and up to a sleep step, and every step would pay that), then sleeps in 50 us steps.
 * results/gpu-waits has the training step timed with this wait, with an unbounded one, and with an earlier version
 * that started sleeping sooner.
 */
final class EventWait {
    /** The system property that sets the longest wait, in seconds. */
    static final String PROPERTY = "mpi2nccl.gpu.waitSeconds";

    /** GPUs on which a wait ran out of time and none has succeeded since: their queued work may never finish. */
    private static final java.util.Set<Integer> STUCK = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /**
     * Longest wait, {@code -Dmpi2nccl.gpu.waitSeconds}; by default 60 s, the NCCL communicator's own default timeout,
     * so that a GPU stuck behind a collective is named as soon as the collective would have been. The launcher sets it
     * below a job's time limit ({@code JobBuilder}).
     */
    static final long WAIT_NANOS = Long.getLong(PROPERTY, 60) * 1_000_000_000L;

    static final long SPIN_NANOS = 20_000_000L;

    private EventWait() {}

    /** Returns once the GPU has passed {@code event}; {@code what} names the wait in the errors. */
    static void await(CUevent event, int gpu, String what) {
        await(event, gpu, what, WAIT_NANOS);
    }

    /** As {@link #await(CUevent, int, String)}, waiting at most {@code limitNanos}. */
    static void await(CUevent event, int gpu, String what, long limitNanos) {
        long start = System.nanoTime();
        long deadline = start + limitNanos;
        while (true) {
            int r = cuEventQuery(event);
            if (r == CUresult.CUDA_SUCCESS) {
                if (!STUCK.isEmpty()) caughtUp(gpu);
                return;
            }
            if (r != CUresult.CUDA_ERROR_NOT_READY) CudaException.check(r, what);
            long now = System.nanoTime();
            if (now > deadline) {
                STUCK.add(gpu);
                throw new CudaException(CUresult.CUDA_ERROR_NOT_READY, "GPU " + gpu + " did not finish the work queued before "
                        + what + " within " + seconds(limitNanos) + " (a collective waiting for a rank that stopped?);"
                        + " set -Dmpi2nccl.gpu.waitSeconds to wait longer");
            }
            // a poll of the GPU, as the class comment says: cuEventSynchronize would wait with no timeout
            if (now - start < SPIN_NANOS) Thread.onSpinWait();
            else LockSupport.parkNanos(50_000);
        }
    }

    /** Whether a wait on GPU {@code gpu} ran out of time in this process. */
    static boolean stuck(int gpu) {
        return STUCK.contains(gpu);
    }

    /** GPU {@code gpu} finished what it had queued, after a wait on it had run out of time. */
    static void caughtUp(int gpu) {
        STUCK.remove(gpu);
    }

    private static String seconds(long nanos) {
        return nanos % 1_000_000_000L == 0 ? nanos / 1_000_000_000L + " s" : nanos / 1e9 + " s";
    }
}
