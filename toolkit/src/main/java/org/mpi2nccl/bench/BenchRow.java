package org.mpi2nccl.bench;

/**
 * One measurement: one communicator, collective, size and placement.
 *
 * @param communicator label of the communicator ("nccl", "mpj-staged", "ring", ...)
 * @param bytes        the "size" column of nccl-tests (all-gather / reduce-scatter: the whole buffer)
 * @param count        elements per rank passed to the call
 * @param placement    "out-of-place" or "in-place"
 * @param timeUs       time per call in microseconds (the slowest rank's average over the timed calls)
 * @param wrong        elements of the checked result that differ from the expected values (-1: not checked)
 * @param d2hUs        host staging only: device-to-host copy per call (else NaN)
 * @param collectiveUs host staging only: the host collective per call (else NaN)
 * @param h2dUs        host staging only: host-to-device copy per call (else NaN)
 */
public record BenchRow(String communicator, String collective, int ranks, String type, String op, int root,
                       long bytes, long count, String placement, int iters, double timeUs, double algbw,
                       double busbw, long wrong, double d2hUs, double collectiveUs, double h2dUs) {
}
