package org.mpi2nccl.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * What the speedup experiment measured: one row per (route, ranks, epoch) in {@link #epochs()}, and one per
 * (route, ranks) in {@link #summary()} with the speedup over the single rank. An epoch's time is split into
 * forward, backward, communication (what backward did not hide), optimizer and other (loading batches,
 * waiting for stragglers); the collectives' own phases (device-to-host copy, the reduction, host-to-device
 * copy) are listed beside them: with overlap they run during backward, so they are not a part of the sum.
 */
public final class SpeedupResults {
    /** The route label of the single-rank baseline (no communication). */
    public static final String SINGLE = "single";

    private static final String[] TIMES = {"epoch_s", "samples_per_s", "train_loss", "train_acc", "test_loss", "test_acc", "eval_s",
            "forward_s", "backward_s", "comm_s", "optimizer_s", "d2h_s", "collective_s", "h2d_s", "lr"};
    private static final String[] COUNTS = {"samples", "steps", "collectives", "bytes_reduced", "batch_per_rank", "global_batch",
            "buckets", "gradient_bytes"};

    private final SpeedupConfig config;
    private final String machine;
    private final Table epochs;
    private final List<String> failures = new ArrayList<>();

    SpeedupResults(SpeedupConfig config, String machine) {
        this.config = config;
        this.machine = machine;
        epochs = Table.create("speedup, per epoch");
        epochs.addColumns(StringColumn.create("route"), IntColumn.create("ranks"), StringColumn.create("device"), IntColumn.create("epoch"));
        for (String c : TIMES) epochs.addColumns(DoubleColumn.create(c));
        epochs.addColumns(DoubleColumn.create("other_s"));
        for (String c : COUNTS) epochs.addColumns(LongColumn.create(c));
    }

    /** Rebuilds results from a per-epoch table written by {@link SpeedupReport} (e.g. recorded GPU results). */
    public static SpeedupResults fromEpochs(SpeedupConfig config, String machine, Table epochTable) {
        SpeedupResults r = new SpeedupResults(config, machine);
        for (Row row : epochTable) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (String c : epochTable.columnNames()) m.put(c, row.getObject(c));
            r.add(String.valueOf(m.get("route")), m);
        }
        return r;
    }

    void add(String route, Map<String, Object> report) {
        epochs.stringColumn("route").append(route);
        epochs.intColumn("ranks").append(number(report, "ranks").intValue());
        epochs.stringColumn("device").append(String.valueOf(report.get("device")));
        epochs.intColumn("epoch").append(number(report, "epoch").intValue());
        double parts = 0;
        for (String c : TIMES) {
            double v = number(report, c).doubleValue();
            epochs.doubleColumn(c).append(v);
            if (c.equals("forward_s") || c.equals("backward_s") || c.equals("comm_s") || c.equals("optimizer_s")) parts += v;
        }
        epochs.doubleColumn("other_s").append(Math.max(0, number(report, "epoch_s").doubleValue() - parts));
        for (String c : COUNTS) epochs.longColumn(c).append(number(report, c).longValue());
    }

    void failed(String run, String why) {
        failures.add(run + ": " + why);
    }

    private static Number number(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (v instanceof Number n) return n;
        if (v == null) throw new IllegalArgumentException("report without '" + key + "': " + m.keySet());
        return Double.parseDouble(v.toString());
    }

    public SpeedupConfig config() { return config; }

    /** The GPUs or CPU the runs used. */
    public String machine() { return machine; }

    /** One row per (route, ranks, epoch). */
    public Table epochs() { return epochs; }

    /** Runs that failed, with the reason (empty when all ran). */
    public List<String> failures() { return List.copyOf(failures); }

    /** The (route, ranks) pairs in the order they ran. */
    public List<String[]> runs() {
        List<String[]> out = new ArrayList<>();
        for (Row r : epochs) {
            String[] key = {r.getString("route"), Integer.toString(r.getInt("ranks"))};
            if (out.stream().noneMatch(k -> Arrays.equals(k, key))) out.add(key);
        }
        return out;
    }

    /** The epoch rows of one run. */
    public Table run(String route, int ranks) {
        return epochs.where(epochs.stringColumn("route").isEqualTo(route).and(epochs.intColumn("ranks").isEqualTo(ranks)));
    }

    /** Routes other than the single-rank baseline, in the order they ran. */
    public List<String> routes() {
        return epochs.stringColumn("route").unique().asList().stream().filter(r -> !r.equals(SINGLE))
                .sorted((a, b) -> Integer.compare(epochs.stringColumn("route").firstIndexOf(a), epochs.stringColumn("route").firstIndexOf(b)))
                .toList();
    }

    /**
     * One row per run: the median epoch (robust to a slow first epoch), throughput, speedup and efficiency over the
     * single rank, the last epoch's test accuracy and its difference from the single rank's in points, and the mean
     * per-epoch time of each phase.
     */
    public Table summary() {
        Table s = Table.create("speedup");
        StringColumn route = StringColumn.create("route");
        IntColumn ranks = IntColumn.create("ranks");
        IntColumn nEpochs = IntColumn.create("epochs");
        DoubleColumn epochS = DoubleColumn.create("epoch_s"), sps = DoubleColumn.create("samples_per_s"),
                speedup = DoubleColumn.create("speedup"), eff = DoubleColumn.create("efficiency"),
                acc = DoubleColumn.create("test_acc"), accDiff = DoubleColumn.create("acc_vs_1rank_points");
        String[] phases = {"forward_s", "backward_s", "comm_s", "optimizer_s", "other_s", "d2h_s", "collective_s", "h2d_s"};
        List<DoubleColumn> phaseCols = new ArrayList<>();
        for (String p : phases) phaseCols.add(DoubleColumn.create(p));
        DoubleColumn commShare = DoubleColumn.create("comm_share");
        double baseSps = Double.NaN, baseAcc = Double.NaN;
        for (String[] key : runs()) {
            Table t = run(key[0], Integer.parseInt(key[1]));
            if (key[0].equals(SINGLE)) {
                baseSps = throughput(t);
                baseAcc = lastAccuracy(t);
            }
        }
        for (String[] key : runs()) {
            Table t = run(key[0], Integer.parseInt(key[1]));
            int n = Integer.parseInt(key[1]);
            route.append(key[0]);
            ranks.append(n);
            nEpochs.append(t.rowCount());
            double median = median(t.doubleColumn("epoch_s").asDoubleArray());
            epochS.append(median);
            double through = throughput(t);
            sps.append(through);
            speedup.append(through / baseSps);
            eff.append(through / baseSps / n);
            acc.append(lastAccuracy(t));
            accDiff.append(100 * (lastAccuracy(t) - baseAcc));
            for (int i = 0; i < phases.length; i++) phaseCols.get(i).append(t.doubleColumn(phases[i]).mean());
            commShare.append(t.doubleColumn("comm_s").mean() / t.doubleColumn("epoch_s").mean());
        }
        s.addColumns(route, ranks, nEpochs, epochS, sps, speedup, eff, acc, accDiff);
        phaseCols.forEach(s::addColumns);
        s.addColumns(commShare);
        return s;
    }

    /** Examples per second of the median epoch. */
    private static double throughput(Table t) {
        return t.longColumn("samples").getLong(0) / median(t.doubleColumn("epoch_s").asDoubleArray());
    }

    private static double lastAccuracy(Table t) {
        return t.doubleColumn("test_acc").getDouble(t.rowCount() - 1);
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length == 0 ? Double.NaN : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Speedup of {@code route} on {@code ranks} ranks over the single rank (NaN if either did not run). */
    public double speedup(String route, int ranks) {
        Table s = summary();
        for (Row r : s) if (r.getString("route").equals(route) && r.getInt("ranks") == ranks) return r.getDouble("speedup");
        return Double.NaN;
    }
}
