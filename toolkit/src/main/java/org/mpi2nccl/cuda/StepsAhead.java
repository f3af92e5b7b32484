package org.mpi2nccl.cuda;

/**
 * How many training steps the host may queue ahead of the GPU: {@code MPI2NCCL_STEPS_AHEAD} (default 8, read
 * once). The host waits for the GPU only when it is this far ahead (the phase clock's events and the pinned upload
 * buffers are sized by it), so a pause of the host shorter than that many steps (a garbage collection, a slow batch,
 * the other rank's all-reduce call) does not reach the GPU. With 2 GPUs in lockstep through their all-reduces, a
 * pause that does reach one GPU holds up both.
 */
public final class StepsAhead {
    /** The setting in force. */
    public static final int STEPS = parse(System.getenv("MPI2NCCL_STEPS_AHEAD"));

    private StepsAhead() {}

    static int parse(String value) {
        if (value == null || value.isBlank()) return 8;
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= 64) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("MPI2NCCL_STEPS_AHEAD=" + value + ": give a number of steps from 1 to 64 (default 8)");
    }
}
