package org.mpi2nccl.tensor;

/**
 * Reductions of {@link Backend#reduce}. {@code ARGMAX} writes the index (as a float, exact below 2^24) of
 * the first maximum along the reduced axis.
 */
public enum ReduceOp { SUM, MAX, MIN, ARGMAX }
