package org.mpi2nccl.parallel.timing;

import org.mpi2nccl.tensor.Backend;

/**
 * Times the {@link Phase}s of training steps. On the CPU the host clock is the truth. On a GPU the host only
 * queues work, so host timestamps would measure launch times: {@link CudaPhaseClock} records CUDA events on
 * the backend's stream instead and reads them a few steps later, without stalling every step.
 */
interface PhaseClock extends AutoCloseable {

    /** Marks the start of a step. */
    void stepStart();

    /** Marks the end of {@code phase} (called for each phase in order). */
    void phaseEnd(Phase phase);

    /** Adds the phase times of every step measured so far into {@code nanos} (indexed by ordinal); may wait for the GPU. */
    void drainInto(long[] nanos);

    @Override
    void close();

    /**
     * {@code timeout}, {@code who}: how long a GPU clock waits for a step before it fails, naming {@code who} (a rank);
     * {@code onStuck} is told the error before it is thrown.
     */
    static PhaseClock forBackend(Backend backend, java.time.Duration timeout, String who, java.util.function.Consumer<String> onStuck) {
        return backend.device().isCpu() ? new HostPhaseClock()
                : new CudaPhaseClock((org.mpi2nccl.cuda.CudaBackend) backend, timeout, who, onStuck);
    }
}
