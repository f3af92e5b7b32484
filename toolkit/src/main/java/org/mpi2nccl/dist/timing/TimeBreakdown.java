package org.mpi2nccl.dist.timing;

import java.util.Locale;

/**
 * Where the time of a number of training steps went (sums over the steps, nanoseconds).
 *
 * @param steps            steps measured
 * @param forwardNanos     model forward and loss
 * @param backwardNanos    backward (with overlap, the all-reduce of finished buckets runs inside it)
 * @param commNanos        communication that backward did not hide: waiting for the all-reduce, packing and
 *                         unpacking the gradient buckets
 * @param optimizerNanos   the optimizer's update
 * @param d2hNanos         MPI route on GPUs: copying buckets device to host (inside the collectives)
 * @param collectiveNanos  the collectives themselves (on the host route: MPI's Allreduce on host memory);
 *                         these three add up to the time spent in collectives, hidden or not
 * @param h2dNanos         MPI route on GPUs: copying the results back host to device
 * @param collectives      number of all-reduce calls
 * @param bytesReduced     bytes all-reduced
 */
public record TimeBreakdown(long steps, long forwardNanos, long backwardNanos, long commNanos, long optimizerNanos,
                            long d2hNanos, long collectiveNanos, long h2dNanos, long collectives, long bytesReduced) {

    public long totalNanos() {
        return forwardNanos + backwardNanos + commNanos + optimizerNanos;
    }

    public TimeBreakdown minus(TimeBreakdown o) {
        return new TimeBreakdown(steps - o.steps, forwardNanos - o.forwardNanos, backwardNanos - o.backwardNanos,
                commNanos - o.commNanos, optimizerNanos - o.optimizerNanos, d2hNanos - o.d2hNanos,
                collectiveNanos - o.collectiveNanos, h2dNanos - o.h2dNanos, collectives - o.collectives,
                bytesReduced - o.bytesReduced);
    }

    /** Nanoseconds of one phase. */
    public long nanos(Phase p) {
        return switch (p) {
            case FORWARD -> forwardNanos;
            case BACKWARD -> backwardNanos;
            case COMMUNICATION -> commNanos;
            case OPTIMIZER -> optimizerNanos;
        };
    }

    /** Milliseconds per step of one phase (0 when no step was measured). */
    public double msPerStep(Phase p) {
        return steps == 0 ? 0 : nanos(p) / 1e6 / steps;
    }

    @Override
    public String toString() {
        if (steps == 0) return "no steps";
        return String.format(Locale.ROOT, "%d steps, per step: forward %.2f ms, backward %.2f ms, communication %.2f ms"
                        + " (collectives: D2H %.2f + reduce %.2f + H2D %.2f ms), optimizer %.2f ms",
                steps, msPerStep(Phase.FORWARD), msPerStep(Phase.BACKWARD), msPerStep(Phase.COMMUNICATION),
                d2hNanos / 1e6 / steps, collectiveNanos / 1e6 / steps, h2dNanos / 1e6 / steps, msPerStep(Phase.OPTIMIZER));
    }
}
