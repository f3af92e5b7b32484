package org.mpi2nccl.comm.nccl;

import java.time.Duration;

/**
 * Settings of an {@link NcclCommunicator}.
 *
 * @param device       CUDA device of this rank, or -1 for "rank modulo the number of GPUs" (one host)
 * @param timeout      longest any call may take (init included) before the communicator is aborted
 * @param verifyCalls  the metadata check before each collective (a tiny all-gather + host round trip)
 * @param synchronous  each call returns when its result is ready; false: calls return once queued on the
 *                     stream (as in PyTorch and nccl-tests) and {@link NcclCommunicator#synchronize()} waits
 * @param blocking     NCCL's own blocking mode (default true, as PyTorch): calls return once their GPU work is
 *                     queued. false: NCCL's non-blocking mode, where every call is handed to a background thread
 *                     and polled (the hand-over and the polling then cost a small collective more than its GPU work)
 * @param stream       a CUDA stream (cudaStream_t address) to run on, shared with other GPU work; 0 = own stream
 * @param maxCtas      at most this many CTAs (thread blocks, one SM each) per collective, NCCL's config.maxCTAs: fewer
 *                     SMs taken from kernels running beside the collectives, at the cost of bandwidth; 0 = NCCL's choice
 */
public record NcclOptions(int device, Duration timeout, boolean verifyCalls, boolean synchronous, boolean blocking,
                          long stream, int maxCtas) {

    public NcclOptions {
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        if (maxCtas < 0) {
            throw new IllegalArgumentException("maxCtas must be >= 0 (0: NCCL's choice), got " + maxCtas);
        }
        if (device < -1) {
            throw new IllegalArgumentException("device must be a CUDA ordinal >= 0, or -1 for rank % GPUs; got " + device);
        }
    }

    /** Device from the rank, 60 s timeout, checks on, synchronous, blocking NCCL, own stream. */
    public static NcclOptions defaults() {
        return new NcclOptions(-1, Duration.ofSeconds(60), true, true, true, 0, 0);
    }

    /** As nccl-tests and PyTorch run: no metadata check, calls return once queued. */
    public static NcclOptions fast() {
        return defaults().verifyCalls(false).synchronous(false);
    }

    public NcclOptions device(int d) {
        return new NcclOptions(d, timeout, verifyCalls, synchronous, blocking, stream, maxCtas);
    }

    public NcclOptions timeout(Duration t) {
        return new NcclOptions(device, t, verifyCalls, synchronous, blocking, stream, maxCtas);
    }

    public NcclOptions verifyCalls(boolean on) {
        return new NcclOptions(device, timeout, on, synchronous, blocking, stream, maxCtas);
    }

    public NcclOptions synchronous(boolean on) {
        return new NcclOptions(device, timeout, verifyCalls, on, blocking, stream, maxCtas);
    }

    public NcclOptions blocking(boolean on) {
        return new NcclOptions(device, timeout, verifyCalls, synchronous, on, stream, maxCtas);
    }

    public NcclOptions stream(long cudaStreamAddress) {
        return new NcclOptions(device, timeout, verifyCalls, synchronous, blocking, cudaStreamAddress, maxCtas);
    }

    public NcclOptions maxCtas(int ctas) {
        return new NcclOptions(device, timeout, verifyCalls, synchronous, blocking, stream, ctas);
    }
}
