package org.mpi2nccl.parallel.timing;

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

    /**
     * Several breakdowns side by side for a lesson, one row each (the map's keys name them): milliseconds per step of
     * the whole step, forward, backward, the communication backward did not hide and the optimizer, and the
     * all-reduce calls per step; 3 significant digits.
     */
    public static tech.tablesaw.api.Table table(java.util.Map<String, TimeBreakdown> rows) {
        tech.tablesaw.api.StringColumn name = tech.tablesaw.api.StringColumn.create("route");
        String[] heads = {"step (ms)", "forward (ms)", "backward (ms)", "comm not hidden (ms)", "optimizer (ms)", "all-reduces per step"};
        tech.tablesaw.api.DoubleColumn[] cols = new tech.tablesaw.api.DoubleColumn[heads.length];
        for (int i = 0; i < heads.length; i++) cols[i] = tech.tablesaw.api.DoubleColumn.create(heads[i]);
        for (java.util.Map.Entry<String, TimeBreakdown> e : rows.entrySet()) {
            TimeBreakdown t = e.getValue();
            double n = Math.max(1, t.steps());
            name.append(e.getKey());
            double[] v = {t.totalNanos() / 1e6 / n, t.msPerStep(Phase.FORWARD), t.msPerStep(Phase.BACKWARD),
                    t.msPerStep(Phase.COMMUNICATION), t.msPerStep(Phase.OPTIMIZER), t.collectives() / n};
            for (int i = 0; i < v.length; i++) cols[i].append(significant(v[i]));
        }
        return tech.tablesaw.api.Table.create("per step").addColumns(name).addColumns(cols);
    }

    private static double significant(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) return v;
        return new java.math.BigDecimal(v).round(new java.math.MathContext(3)).doubleValue();
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
