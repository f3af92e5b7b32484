package org.mpi2nccl.parallel;

import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;

/**
 * Told by {@link DataParallel} where each step is, for whoever measures the steps (the timing package); the step itself does nothing
 * with it. {@link #allReduced} is called on the thread that made the all-reduce, the others on the caller's.
 */
public interface StepListener {
    default void stepStarted() {}

    default void forwardDone() {}

    default void backwardDone() {}

    default void gradientsAveraged() {}

    default void optimizerDone() {}

    /**
     * Bucket {@code bucket}'s all-reduce is being launched: with overlap, the moment backward finished its last
     * gradient; without, after backward.
     */
    default void bucketLaunched(int bucket) {}

    /** One bucket's all-reduce through {@code via} returned after {@code nanos}. */
    default void allReduced(Communicator via, CommBuffer buffer, long nanos) {}
}
