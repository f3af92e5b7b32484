package org.mpi2nccl.bench;

import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * What one training step costs, phase by phase, and what adding ranks adds to it: the speedup's story told per step.
 * With a fixed batch per rank, N ranks take 1/N of the steps, each doing one rank's work; whatever a step on N ranks
 * takes beyond a step on one rank (communication not hidden, work slowed beside the collectives) is what keeps the
 * speedup under N. Times are microseconds per step (the phase's seconds per epoch over the epoch's steps), averaged
 * over the epochs after the first (the first warms the learning rate up and, on GPUs, records the step's graphs), to
 * 0.1 us.
 * Runs without a phase breakdown (a peer read from its CSV, such as PyTorch DDP) are left out.
 */
public final class StepCosts {
    private StepCosts() {}

    private static final String[] PHASES = {"forward", "backward", "comm", "optimizer", "other"};

    /**
     * One row per run: {@code step_us} and each phase's microseconds per step, then {@code extra_us} and each phase's
     * difference from the single rank's step ({@code d_forward_us} ...); the single rank's differences are 0.
     */
    public static Table of(SpeedupResults r) {
        StringColumn route = StringColumn.create("route");
        IntColumn ranks = IntColumn.create("ranks");
        DoubleColumn step = DoubleColumn.create("step_us"), extra = DoubleColumn.create("extra_us");
        DoubleColumn[] phase = new DoubleColumn[PHASES.length], delta = new DoubleColumn[PHASES.length];
        for (int i = 0; i < PHASES.length; i++) {
            phase[i] = DoubleColumn.create(PHASES[i] + "_us");
            delta[i] = DoubleColumn.create("d_" + PHASES[i] + "_us");
        }
        double[] base = perStep(r.run(SpeedupResults.SINGLE, 1));
        for (String[] key : r.runs()) {
            Table t = r.run(key[0], Integer.parseInt(key[1]));
            if (!r.hasPhases(key[0]) && !key[0].equals(SpeedupResults.SINGLE)) continue;
            double[] v = perStep(t);
            if (v == null) continue;
            route.append(key[0]);
            ranks.append(Integer.parseInt(key[1]));
            step.append(v[0]);
            extra.append(base == null ? Double.NaN : v[0] - base[0]);
            for (int i = 0; i < PHASES.length; i++) {
                phase[i].append(v[i + 1]);
                delta[i].append(base == null ? Double.NaN : v[i + 1] - base[i + 1]);
            }
        }
        Table out = Table.create("per step").addColumns(route, ranks, step);
        out.addColumns(phase);
        out.addColumns(extra);
        out.addColumns(delta);
        return out;
    }

    /**
     * The per-step costs for a lesson: route, ranks, the step, its compute (forward, backward, optimizer), the
     * communication it did not hide, and what it costs beyond one rank's step; microseconds to 3 significant digits.
     * {@link #of} is the full table.
     */
    public static Table compact(SpeedupResults r) {
        Table full = of(r);
        DoubleColumn step = DoubleColumn.create("step (us)"), compute = DoubleColumn.create("compute (us)"),
                comm = DoubleColumn.create("comm not hidden (us)"), extra = DoubleColumn.create("beyond 1 rank (us)");
        for (int i = 0; i < full.rowCount(); i++) {
            step.append(SpeedupResults.significant(full.doubleColumn("step_us").getDouble(i)));
            compute.append(SpeedupResults.significant(full.doubleColumn("forward_us").getDouble(i)
                    + full.doubleColumn("backward_us").getDouble(i) + full.doubleColumn("optimizer_us").getDouble(i)));
            comm.append(SpeedupResults.significant(full.doubleColumn("comm_us").getDouble(i)));
            extra.append(SpeedupResults.significant(full.doubleColumn("extra_us").getDouble(i)));
        }
        return Table.create("per step").addColumns(full.stringColumn("route").copy(), full.intColumn("ranks").copy(), step,
                compute, comm, extra);
    }

    /** {step, forward, backward, comm, optimizer, other} in microseconds per step, or null for a run with no rows. */
    private static double[] perStep(Table run) {
        if (run == null || run.rowCount() == 0 || !run.columnNames().contains("steps")) return null;
        // the first epoch of each round loads and settles things: left out where the run has later ones
        boolean skipFirst = run.intColumn("epoch").max() > 1;
        double[] sum = new double[PHASES.length + 1];
        int n = 0;
        for (int row = 0; row < run.rowCount(); row++) {
            if (skipFirst && run.intColumn("epoch").getInt(row) == 1) continue;
            if (run.longColumn("steps").isMissing(row)) continue;
            double steps = run.longColumn("steps").getLong(row);
            if (!(steps > 0)) continue;
            sum[0] += run.doubleColumn("epoch_s").getDouble(row) / steps * 1e6;
            for (int i = 0; i < PHASES.length; i++) sum[i + 1] += run.doubleColumn(PHASES[i] + "_s").getDouble(row) / steps * 1e6;
            n++;
        }
        if (n == 0) return null;
        for (int i = 0; i < sum.length; i++) sum[i] = Math.round(sum[i] / n * 10) / 10.0;     // 0.1 us: the events' resolution
        return sum;
    }
}
