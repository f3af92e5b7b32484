package org.mpi2nccl.cuda;

/**
 * How many training steps the host may queue ahead of the GPU: 8. The host waits for the GPU only when it is
 * this far ahead (the phase clock's events and the pinned upload buffers are sized by it), so a pause of the host shorter than that many steps (a garbage collection, a slow batch,
 * the other rank's all-reduce call) does not reach the GPU. With 2 GPUs in lockstep through their all-reduces, a
 * pause that does reach one GPU holds up both.
 */
public final class StepsAhead {
    /** Steps the host may run ahead. */
    public static final int STEPS = 8;

    private StepsAhead() {}
}
