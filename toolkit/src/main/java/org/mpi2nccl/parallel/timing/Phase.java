package org.mpi2nccl.parallel.timing;

/**
 * The parts of one data-parallel training step, in order. {@link #COMMUNICATION} is the time between the
 * end of backward and the moment the averaged gradients are back in place: with overlap, only the part of
 * the all-reduce that backward did not hide.
 */
public enum Phase {
    FORWARD, BACKWARD, COMMUNICATION, OPTIMIZER
}
