package org.mpi2nccl.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.math3.stat.StatUtils;
import org.apache.commons.math3.stat.descriptive.rank.Median;
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
 *
 * <p>An experiment may run in several rounds, each (route, ranks) run once per round in turn (1 rank, then 2,
 * ..., then again): a machine that drifts over minutes (clocks, another job, a first run after start-up) then
 * weighs on every run alike instead of on whichever ran first. Each row says its {@code round}; the summary
 * pools the rounds.
 */
public final class SpeedupResults {
    /** The route label of the single-rank baseline (no communication). */
    public static final String SINGLE = "single";

    private static final String[] TIMES = {"epoch_s", "samples_per_s", "train_loss", "train_acc", "test_loss", "test_acc", "eval_s",
            "forward_s", "backward_s", "comm_s", "optimizer_s", "d2h_s", "collective_s", "h2d_s", "lr"};
    private static final String[] COUNTS = {"samples", "steps", "collectives", "bytes_reduced", "batch_per_rank", "global_batch",
            "buckets", "gradient_bytes"};

    private final String settings;
    private final String machine;
    private final Table epochs;
    private final Table ranks;
    private final List<String> failures = new ArrayList<>();
    private static final String[] RANK_TIMES = {"epoch_s", "forward_s", "backward_s", "comm_s", "optimizer_s", "d2h_s",
            "collective_s", "h2d_s"};

    SpeedupResults(String settings, String machine) {
        this.settings = settings;
        this.machine = machine;
        epochs = Table.create("speedup, per epoch");
        epochs.addColumns(StringColumn.create("route"), IntColumn.create("ranks"), StringColumn.create("device"), IntColumn.create("epoch"),
                IntColumn.create("round"));
        for (String c : TIMES) epochs.addColumns(DoubleColumn.create(c));
        epochs.addColumns(DoubleColumn.create("other_s"));
        for (String c : COUNTS) epochs.addColumns(LongColumn.create(c));
        ranks = Table.create("speedup, per rank and epoch");
        ranks.addColumns(StringColumn.create("route"), IntColumn.create("ranks"), IntColumn.create("rank"), IntColumn.create("epoch"),
                IntColumn.create("round"));
        for (String c : RANK_TIMES) ranks.addColumns(DoubleColumn.create(c));
    }

    /** Rebuilds results from a per-epoch table written by {@link SpeedupReport} (e.g. recorded GPU results). */
    public static SpeedupResults fromEpochs(String settings, String machine, Table epochTable) {
        SpeedupResults r = new SpeedupResults(settings, machine);
        r.addAll(epochTable);
        return r;
    }

    /**
     * Results recorded in per-epoch CSV files ({@code epochs.csv} of a report, or a peer's rows in the same
     * columns, e.g. PyTorch DDP's with route "ddp"), merged into one: the settings come from the first file's
     * {@code run.txt} where there is one.
     */
    public static SpeedupResults fromCsv(List<java.nio.file.Path> files) throws java.io.IOException {
        String settings = "recorded results: " + files;
        for (java.nio.file.Path f : files) {
            java.nio.file.Path meta = f.toAbsolutePath().resolveSibling("run.txt");
            if (java.nio.file.Files.isReadable(meta)) {
                for (String line : java.nio.file.Files.readAllLines(meta)) {
                    if (line.startsWith("settings: ")) {
                        settings = line.substring(10);
                        if (!settings.endsWith("(recorded)")) settings += " (recorded)";
                    }
                }
                break;
            }
        }
        java.util.LinkedHashSet<String> devices = new java.util.LinkedHashSet<>();
        List<Table> tables = new ArrayList<>();
        for (java.nio.file.Path f : files) {
            if (!java.nio.file.Files.isReadable(f)) throw new java.io.FileNotFoundException("no results file " + f);
            Table t;
            // through a UTF-8 reader: given a file, Tablesaw guesses its charset with ICU4J, which the GPU bundle leaves out
            try (java.io.Reader in = java.nio.file.Files.newBufferedReader(f, java.nio.charset.StandardCharsets.UTF_8)) {
                t = Table.read().usingOptions(tech.tablesaw.io.csv.CsvReadOptions.builder(in).tableName(f.toString()));
            }
            if (!t.columnNames().contains("route") || !t.columnNames().contains("epoch_s"))
                throw new IllegalArgumentException(f + " is not a per-epoch results file (needs route, ranks, epoch, epoch_s, ...)");
            tables.add(t);
            for (Row row : t) devices.add(String.valueOf(row.getObject("device")));
        }
        SpeedupResults r = new SpeedupResults(settings, String.join(" / ", devices));
        tables.forEach(r::addAll);
        return r;
    }

    private void addAll(Table epochTable) {
        for (Row row : epochTable) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (String c : epochTable.columnNames()) m.put(c, row.getObject(c));
            add(String.valueOf(m.get("route")), m);
        }
    }

    void add(String route, Map<String, Object> report) {
        epochs.stringColumn("route").append(route);
        epochs.intColumn("ranks").append(number(report, "ranks").intValue());
        epochs.stringColumn("device").append(String.valueOf(report.get("device")));
        epochs.intColumn("epoch").append(number(report, "epoch").intValue());
        epochs.intColumn("round").append(round(report));
        double parts = 0;
        for (String c : TIMES) {
            double v = number(report, c).doubleValue();
            epochs.doubleColumn(c).append(v);
            if (c.equals("forward_s") || c.equals("backward_s") || c.equals("comm_s") || c.equals("optimizer_s")) parts += v;
        }
        epochs.doubleColumn("other_s").append(Double.isNaN(parts) ? Double.NaN : Math.max(0, number(report, "epoch_s").doubleValue() - parts));
        for (String c : COUNTS) {
            Number v = number(report, c);
            if (v instanceof Double d && d.isNaN()) epochs.longColumn(c).appendMissing();
            else epochs.longColumn(c).append(v.longValue());
        }
    }

    /** One rank's own times of an epoch (loss and accuracy are the same on every rank: they are summed over all). */
    void addRank(String route, Map<String, Object> report) {
        ranks.stringColumn("route").append(route);
        ranks.intColumn("ranks").append(number(report, "ranks").intValue());
        ranks.intColumn("rank").append(number(report, "rank").intValue());
        ranks.intColumn("epoch").append(number(report, "epoch").intValue());
        ranks.intColumn("round").append(round(report));
        for (String c : RANK_TIMES) ranks.doubleColumn(c).append(number(report, c).doubleValue());
    }

    /**
     * Every rank's times per epoch: a rank slower than the others (a straggler) makes them all wait in the
     * all-reduce, which shows up in their backward or communication time.
     */
    public Table perRank() { return ranks; }

    void failed(String run, String why) {
        failures.add(run + ": " + why);
    }

    /** The round of a report or CSV row: 1 where it has none (one round, or a file written before rounds). */
    private static int round(Map<String, Object> m) {
        Number n = number(m, "round");
        return n instanceof Double d && d.isNaN() ? 1 : n.intValue();
    }

    /** A value of a report or CSV row; missing (e.g. a peer that does not measure phases) is NaN. */
    private static Number number(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (v instanceof Number n) return n;
        if (v == null || v.toString().isBlank()) return Double.NaN;
        return Double.parseDouble(v.toString());
    }

    /** What was trained, in words. */
    public String settings() { return settings; }

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

    /** How many rounds the results hold (1 for a single pass over the runs; rounds may be numbered from any k). */
    public int rounds() {
        return epochs.rowCount() == 0 ? 0 : epochs.intColumn("round").unique().size();
    }

    /**
     * The full table (for the compact one lessons show, {@link #compact()}). One row per run: the median epoch over all its rounds (robust to a slow first epoch and to one slow round),
     * throughput, speedup and efficiency over the single rank, the lowest and highest speedup of a single round
     * (its median epoch against the baseline's in the same round: how far one pass could have misled) and the median
     * of the rounds' speedups ({@code speedup_paired}: each round against its own baseline, so that a machine, or a
     * host-bound peer, that ran faster in one round than in another does not pair one round's 1-rank epochs with
     * another's N-rank epochs, as the pooled medians can: they then give a ratio above every round's), the test
     * accuracy after the last epoch (averaged over the rounds) and its difference from the single rank's in
     * points, and the mean per-epoch time of each phase.
     */
    public Table summary() {
        Table s = Table.create("speedup");
        StringColumn route = StringColumn.create("route");
        IntColumn ranks = IntColumn.create("ranks");
        IntColumn nEpochs = IntColumn.create("epochs");
        DoubleColumn epochS = DoubleColumn.create("epoch_s"), sps = DoubleColumn.create("samples_per_s"),
                speedup = DoubleColumn.create("speedup"), eff = DoubleColumn.create("efficiency"),
                lo = DoubleColumn.create("speedup_lo"), hi = DoubleColumn.create("speedup_hi"),
                paired = DoubleColumn.create("speedup_paired"),
                acc = DoubleColumn.create("test_acc"), accDiff = DoubleColumn.create("acc_vs_1rank_points");
        String[] phases = {"forward_s", "backward_s", "comm_s", "optimizer_s", "other_s", "d2h_s", "collective_s", "h2d_s"};
        List<DoubleColumn> phaseCols = new ArrayList<>();
        for (String p : phases) phaseCols.add(DoubleColumn.create(p));
        DoubleColumn commShare = DoubleColumn.create("comm_share");
        for (String[] key : runs()) {
            Table t = run(key[0], Integer.parseInt(key[1]));
            int n = Integer.parseInt(key[1]);
            Table base = baseline(key[0]);
            double baseSps = base == null ? Double.NaN : throughput(base), baseAcc = base == null ? Double.NaN : lastAccuracy(base);
            route.append(key[0]);
            ranks.append(n);
            nEpochs.append(t.rowCount());
            double median = median(t.doubleColumn("epoch_s").asDoubleArray());
            epochS.append(median);
            double through = throughput(t);
            sps.append(through);
            speedup.append(through / baseSps);
            eff.append(through / baseSps / n);
            double[] spread = roundSpeedups(t, base);
            lo.append(spread[0]);
            hi.append(spread[1]);
            paired.append(spread[2]);
            acc.append(lastAccuracy(t));
            accDiff.append(100 * (lastAccuracy(t) - baseAcc));
            for (int i = 0; i < phases.length; i++) phaseCols.get(i).append(t.doubleColumn(phases[i]).mean());
            commShare.append(t.doubleColumn("comm_s").mean() / t.doubleColumn("epoch_s").mean());
        }
        s.addColumns(route, ranks, nEpochs, epochS, sps, speedup, eff, lo, hi, paired, acc, accDiff);
        phaseCols.forEach(s::addColumns);
        s.addColumns(commShare);
        return s;
    }

    /**
     * The summary for a lesson: a few columns, units in the headers, 3 significant digits. One row per run: the median
     * epoch, the median step, the communication a step did not hide, the median of the rounds' speedups and their
     * range, the test accuracy. {@link #summary()} is the full table.
     */
    public Table compact() {
        Table full = summary();
        StringColumn route = StringColumn.create("route"), range = StringColumn.create("speedup range (x)");
        IntColumn ranks = IntColumn.create("ranks");
        DoubleColumn epochS = DoubleColumn.create("epoch (s)"), stepMs = DoubleColumn.create("step (ms)"),
                commMs = DoubleColumn.create("comm (ms/step)"), speedup = DoubleColumn.create("speedup (x)"),
                acc = DoubleColumn.create("test acc (%)");
        for (Row row : full) {
            Table t = run(row.getString("route"), row.getInt("ranks"));
            double[] perStep = new double[t.rowCount()], commPerStep = new double[t.rowCount()];
            for (int i = 0; i < t.rowCount(); i++) {
                double steps = t.longColumn("steps").getLong(i);
                perStep[i] = t.doubleColumn("epoch_s").getDouble(i) / steps;
                commPerStep[i] = t.doubleColumn("comm_s").getDouble(i) / steps;
            }
            route.append(row.getString("route"));
            ranks.append(row.getInt("ranks"));
            epochS.append(significant(row.getDouble("epoch_s")));
            stepMs.append(significant(1e3 * median(perStep)));
            commMs.append(significant(1e3 * StatUtils.mean(commPerStep)));
            speedup.append(significant(row.getDouble("speedup_paired")));
            double lo = row.getDouble("speedup_lo"), hi = row.getDouble("speedup_hi");
            range.append(Double.isNaN(lo) ? "" : significant(lo) + " to " + significant(hi));
            acc.append(significant(100 * row.getDouble("test_acc")));
        }
        return Table.create("speedup (median of " + rounds() + " round" + (rounds() == 1 ? "" : "s") + ")")
                .addColumns(route, ranks, epochS, stepMs, commMs, speedup, range, acc);
    }

    /** {@code v} to 3 significant digits (NaN and infinities as they are). */
    static double significant(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) return v;
        return new java.math.BigDecimal(v).round(new java.math.MathContext(3)).doubleValue();
    }

    /**
     * The one-rank run a route is compared with: its own one-rank run where it has one (a peer such as PyTorch
     * DDP, read from its CSV), else the shared single-rank run.
     */
    private Table baseline(String route) {
        Table own = run(route, 1);
        if (own.rowCount() > 0) return own;
        Table single = run(SINGLE, 1);
        return single.rowCount() > 0 ? single : null;
    }

    /** Examples per second of the median epoch. */
    private static double throughput(Table t) {
        return t.longColumn("samples").getLong(0) / median(t.doubleColumn("epoch_s").asDoubleArray());
    }

    /** True when the route's rows carry the phase breakdown (the toolkit's runs; not a peer read from CSV). */
    public boolean hasPhases(String route) {
        Table t = epochs.where(epochs.stringColumn("route").isEqualTo(route));
        return t.rowCount() > 0 && !Double.isNaN(t.doubleColumn("forward_s").getDouble(0));
    }

    /**
     * {lowest, highest, median} speedup of one round over the baseline's same round; NaN where no round has both.
     */
    private static double[] roundSpeedups(Table run, Table base) {
        if (base == null) return new double[] {Double.NaN, Double.NaN, Double.NaN};
        List<Double> each = new ArrayList<>();
        for (int k : run.intColumn("round").unique()) {
            Table mine = inRound(run, k), theirs = inRound(base, k);
            if (theirs.rowCount() > 0) each.add(throughput(mine) / throughput(theirs));
        }
        if (each.isEmpty()) return new double[] {Double.NaN, Double.NaN, Double.NaN};
        double[] v = each.stream().mapToDouble(Double::doubleValue).toArray();
        return new double[] {StatUtils.min(v), StatUtils.max(v), median(v)};
    }

    private static Table inRound(Table t, int round) {
        return t.where(t.intColumn("round").isEqualTo(round));
    }

    /** The test accuracy after the last epoch, averaged over the rounds (each round trains from the same start). */
    private static double lastAccuracy(Table t) {
        List<Double> last = new ArrayList<>();
        for (int k : t.intColumn("round").unique()) {
            Table r = inRound(t, k);
            last.add(r.doubleColumn("test_acc").getDouble(r.rowCount() - 1));
        }
        return StatUtils.mean(last.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** The rows of the first round a run has (the per-epoch curves: later rounds repeat the same training). */
    public static Table firstRound(Table run) {
        return run.rowCount() == 0 ? run : inRound(run, (int) run.intColumn("round").min());
    }

    /** The middle value (the mean of the two middle ones for an even count); NaN for none. */
    static double median(double[] v) {
        return new Median().evaluate(v);
    }

    /** What a step costs per phase, and what each run's step adds to one rank's ({@link StepCosts}). */
    public Table perStep() {
        return StepCosts.of(this);
    }

    /** Speedup of {@code route} on {@code ranks} ranks over the single rank (NaN if either did not run). */
    public double speedup(String route, int ranks) {
        Table s = summary();
        for (Row r : s) if (r.getString("route").equals(route) && r.getInt("ranks") == ranks) return r.getDouble("speedup");
        return Double.NaN;
    }
}
