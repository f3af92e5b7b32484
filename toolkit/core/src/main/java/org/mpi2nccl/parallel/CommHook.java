package org.mpi2nccl.parallel;

import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.parallel.GradientBuckets.Bucket;

/**
 * How {@link DataParallel} averages its gradient buckets over the ranks: PyTorch DDP's communication hook
 * ({@code register_comm_hook}). The step decides when a bucket is ready (backward finished its gradients) and in
 * which order the buckets go; the hook decides how each one travels. {@link AllReduceHook} is the plain way: one
 * all-reduce per bucket, waited for on the host. The GPU path plugs in here (NCCL on a stream of its own, ordered by
 * CUDA events; the tail launched as one group), so the data-parallel step itself stays the same on every device.
 *
 * <p>Every rank must use an equivalent hook: the collectives it makes must match across the ranks.
 */
public interface CommHook extends AutoCloseable {

    /** The communicator for a bucket launched while backward still runs (overlap). The step's own by default. */
    Communicator beside();

    /** A bucket is packed and its collective is about to read it: make its contents visible to the communicator. */
    void beforeAllReduce();

    /**
     * Averages bucket {@code b} in place over the ranks through {@code via} (the step's communicator or
     * {@link #beside()}). Returns whether the call ran now, to be timed: false for one only recorded (a CUDA graph's
     * capture), which runs at every replay instead.
     */
    boolean allReduce(Bucket b, Communicator via);

    /**
     * Launches the {@code count} buckets backward did not: {@code launchEach} launches them one by one in bucket
     * order (through {@link #allReduce}); a hook may wrap it, e.g. in one NCCL group.
     */
    default void launchTail(int count, Runnable launchEach) {
        launchEach.run();
    }

    /** Every all-reduce of the step has returned: wait until their results may be read (on a GPU they may still run). */
    void afterAllReduces();

    /** Frees what the hook made (not the step's communicator). */
    @Override
    default void close() {
    }
}
