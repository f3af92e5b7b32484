package org.mpi2nccl.data;

/**
 * The order in which a loader visits a data set in one epoch. A distributed sampler returns this rank's share.
 */
public interface Sampler {

    /** The example indices of epoch {@code epoch}, in visiting order. */
    int[] indices(int epoch);

    /** How many indices each epoch yields. */
    int length();
}
