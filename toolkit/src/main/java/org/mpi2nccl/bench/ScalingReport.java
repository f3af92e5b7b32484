package org.mpi2nccl.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The results of a multi-GPU run (scripts/gpu/multi-gpu.sh, its tar unpacked) as tables, charts, targets and a README
 * skeleton: data-parallel speedup against the GPU count beside PyTorch DDP, and the busbw of each collective against
 * torch.distributed at each GPU count. Reads the run's folder as the script leaves it:
 * <pre>
 *   machine.txt                           key=value lines: gpus, commit, date, gpu, driver, torch, command
 *   dp/SET/ours-rK/epochs.csv, dp/SET/ddp*-rK.csv     one round each (SET: fashion, cifar)
 *   bw/nN/rK/nccl/bandwidth.csv, bw/nN/rK/torch.csv   one round at N GPUs
 *   tests-counts.txt, summary.txt         copied as they are
 * </pre>
 * Speedup is judged on the median of the rounds' own speedups (each round against its own 1-GPU run); busbw on the
 * median over rounds at each size.
 */
public final class ScalingReport {
    /** Sizes from here on count for the busbw target (below, both sides are bound by their fixed cost per call). */
    public static final long RATIO_FROM = 1L << 20;

    private final Path run;
    private final Map<String, String> machine;
    private final Map<String, SpeedupResults> dataParallel = new LinkedHashMap<>();
    private final Table busbw;

    private ScalingReport(Path run) throws IOException {
        this.run = run;
        this.machine = readMachine(run.resolve("machine.txt"));
        Path dp = run.resolve("dp");
        for (String set : List.of("fashion", "cifar")) {
            List<Path> csvs = new ArrayList<>();
            Path dir = dp.resolve(set);
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.walk(dir, 2)) {
                    files.filter(p -> p.getFileName().toString().equals("epochs.csv") || p.getFileName().toString().matches("ddp.*-r\\d+\\.csv"))
                            .sorted().forEach(csvs::add);
                }
            }
            if (!csvs.isEmpty()) dataParallel.put(set, SpeedupResults.fromCsv(csvs));
        }
        busbw = readBandwidth(run.resolve("bw"));
    }

    /** Reads the run folder {@code run}; throws with a clear message when it holds neither part. */
    public static ScalingReport read(Path run) throws IOException {
        if (!Files.isDirectory(run)) throw new IllegalArgumentException("no folder " + run + " (unpack multi-gpu.tgz into it first)");
        ScalingReport r = new ScalingReport(run);
        if (r.dataParallel.isEmpty() && r.busbw.rowCount() == 0) {
            throw new IllegalArgumentException(run + " holds no dp/SET/ nor bw/nN/ results of scripts/gpu/multi-gpu.sh");
        }
        return r;
    }

    public Map<String, SpeedupResults> dataParallel() { return dataParallel; }

    /** Every bandwidth row: communicator, collective, gpus, round, size_bytes, placement, busbw_GBps, wrong. */
    public Table busbw() { return busbw; }

    public Map<String, String> machine() { return machine; }

    private static Map<String, String> readMachine(Path f) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        if (!Files.isReadable(f)) return m;
        for (String line : Files.readAllLines(f)) {
            int eq = line.indexOf('=');
            if (eq > 0) m.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
        return m;
    }

    private static final Pattern ROUND_FILE = Pattern.compile(".*/n(\\d+)/r(\\d+)/(nccl/bandwidth|torch)\\.csv$");

    private static Table readBandwidth(Path bw) throws IOException {
        Table t = Table.create("busbw");
        StringColumn comm = StringColumn.create("communicator"), coll = StringColumn.create("collective"), place = StringColumn.create("placement");
        IntColumn gpus = IntColumn.create("gpus"), round = IntColumn.create("round");
        LongColumn size = LongColumn.create("size_bytes"), wrong = LongColumn.create("wrong");
        DoubleColumn bus = DoubleColumn.create("busbw_GBps"), time = DoubleColumn.create("time_us");
        t.addColumns(comm, coll, gpus, round, size, place, time, bus, wrong);
        if (!Files.isDirectory(bw)) return t;
        List<Path> files;
        try (Stream<Path> s = Files.walk(bw, 4)) {
            files = s.filter(p -> ROUND_FILE.matcher(p.toString().replace('\\', '/')).matches()).sorted().toList();
        }
        for (Path f : files) {
            Matcher m = ROUND_FILE.matcher(f.toString().replace('\\', '/'));
            if (!m.matches()) continue;
            for (BenchRow r : BenchResults.readCsv(f).rows()) {
                comm.append(r.communicator());
                coll.append(r.collective());
                gpus.append(Integer.parseInt(m.group(1)));
                round.append(Integer.parseInt(m.group(2)));
                size.append(r.bytes());
                place.append(r.placement());
                time.append(r.timeUs());
                bus.append(r.busbw());
                wrong.append(r.wrong());
            }
        }
        return t;
    }

    // ---- data parallel ------------------------------------------------------------------------------------------------

    /**
     * One row per (set, route, GPU count): the median of the rounds' speedups and their range, the pooled speedup,
     * efficiency, seconds per epoch and the test accuracy against the route's own 1-GPU run.
     */
    public Table speedupTable() {
        Table out = Table.create("speedup");
        StringColumn set = StringColumn.create("set"), route = StringColumn.create("route");
        IntColumn gpus = IntColumn.create("gpus"), rounds = IntColumn.create("rounds");
        DoubleColumn paired = DoubleColumn.create("speedup"), lo = DoubleColumn.create("speedup_lo"), hi = DoubleColumn.create("speedup_hi"),
                pooled = DoubleColumn.create("speedup_pooled"), eff = DoubleColumn.create("efficiency"), epoch = DoubleColumn.create("epoch_s"),
                acc = DoubleColumn.create("test_acc"), accDiff = DoubleColumn.create("acc_vs_1gpu_points");
        out.addColumns(set, route, gpus, rounds, paired, lo, hi, pooled, eff, epoch, acc, accDiff);
        for (Map.Entry<String, SpeedupResults> e : dataParallel.entrySet()) {
            SpeedupResults r = e.getValue();
            for (Row row : r.summary()) {
                int n = row.getInt("ranks");
                double p = row.getDouble("speedup_paired");
                if (Double.isNaN(p)) p = row.getDouble("speedup");
                set.append(e.getKey());
                route.append(row.getString("route").equals(SpeedupResults.SINGLE) ? "1 GPU (ours)" : row.getString("route"));
                gpus.append(n);
                rounds.append(r.run(row.getString("route"), n).intColumn("round").unique().size());
                paired.append(p);
                lo.append(row.getDouble("speedup_lo"));
                hi.append(row.getDouble("speedup_hi"));
                pooled.append(row.getDouble("speedup"));
                eff.append(p / n);
                epoch.append(row.getDouble("epoch_s"));
                acc.append(row.getDouble("test_acc"));
                accDiff.append(row.getDouble("acc_vs_1rank_points"));
            }
        }
        return out;
    }

    /** {@link #speedupTable} as aligned text, one line per (set, route, GPU count). */
    public String speedupText() {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%-8s %-13s %4s %9s %8s %15s %8s %7s %9s%n",
                "set", "route", "gpus", "epoch_s", "speedup", "rounds' range", "pooled", "eff", "test_acc"));
        for (Row r : speedupTable()) {
            s.append(String.format(Locale.ROOT, "%-8s %-13s %4d %9.3f %7.3fx %15s %7.3fx %6.1f%% %8.2f%%%n", r.getString("set"), r.getString("route"),
                    r.getInt("gpus"), r.getDouble("epoch_s"), r.getDouble("speedup"),
                    Double.isNaN(r.getDouble("speedup_lo")) ? "-" : String.format(Locale.ROOT, "%.3f-%.3f", r.getDouble("speedup_lo"), r.getDouble("speedup_hi")),
                    r.getDouble("speedup_pooled"), 100 * r.getDouble("efficiency"), 100 * r.getDouble("test_acc")));
        }
        return s.toString();
    }

    // ---- bandwidth ----------------------------------------------------------------------------------------------------

    /**
     * One row per (collective, GPU count, size from {@link #RATIO_FROM}): the median busbw over rounds of NCCL through
     * the toolkit and of torch.distributed (in place where both have it, else out of place), and their ratio.
     */
    public Table ratioTable() {
        Table out = Table.create("busbw ratio");
        StringColumn coll = StringColumn.create("collective"), place = StringColumn.create("placement");
        IntColumn gpus = IntColumn.create("gpus"), rounds = IntColumn.create("rounds");
        LongColumn size = LongColumn.create("size_bytes");
        DoubleColumn ours = DoubleColumn.create("nccl_busbw_GBps"), torch = DoubleColumn.create("torch_busbw_GBps"), ratio = DoubleColumn.create("ratio");
        out.addColumns(coll, gpus, size, place, rounds, ours, torch, ratio);
        // (collective, gpus, size) -> placement -> communicator -> busbw of each round
        Map<String, Map<String, Map<String, List<Double>>>> cells = new TreeMap<>();
        for (Row r : busbw) {
            if (r.getLong("size_bytes") < RATIO_FROM) continue;
            String key = String.format(Locale.ROOT, "%s|%03d|%015d", r.getString("collective"), r.getInt("gpus"), r.getLong("size_bytes"));
            String who = r.getString("communicator").startsWith("torch") ? "torch" : r.getString("communicator").equals("nccl") ? "nccl" : null;
            if (who == null) continue;
            cells.computeIfAbsent(key, k -> new TreeMap<>()).computeIfAbsent(r.getString("placement"), k -> new TreeMap<>())
                    .computeIfAbsent(who, k -> new ArrayList<>()).add(r.getDouble("busbw_GBps"));
        }
        for (Map.Entry<String, Map<String, Map<String, List<Double>>>> c : cells.entrySet()) {
            Map<String, Map<String, List<Double>>> byPlace = c.getValue();
            String chosen = both(byPlace.get("in-place")) ? "in-place" : both(byPlace.get("out-of-place")) ? "out-of-place" : null;
            if (chosen == null) continue;
            String[] k = c.getKey().split("\\|");
            double a = median(byPlace.get(chosen).get("nccl")), b = median(byPlace.get(chosen).get("torch"));
            coll.append(k[0]);
            gpus.append(Integer.parseInt(k[1]));
            size.append(Long.parseLong(k[2]));
            place.append(chosen);
            rounds.append(Math.min(byPlace.get(chosen).get("nccl").size(), byPlace.get(chosen).get("torch").size()));
            ours.append(a);
            torch.append(b);
            ratio.append(a / b);
        }
        return out;
    }

    private static boolean both(Map<String, List<Double>> m) {
        return m != null && m.containsKey("nccl") && m.containsKey("torch");
    }

    static double median(List<Double> v) {
        return SpeedupResults.median(v.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** Bandwidth rows whose results were checked wrong (should be none). */
    public long wrongRows() {
        return busbw.rowCount() == 0 ? 0 : busbw.where(busbw.longColumn("wrong").isGreaterThan(0)).rowCount();
    }

    // ---- targets and files --------------------------------------------------------------------------------------------

    /** The targets, one verdict per line: speedup >= 0.95 n and >= DDP's, accuracy within 0.5 points; busbw ratio >= 1.00. */
    public String targets() {
        StringBuilder s = new StringBuilder();
        Table sp = speedupTable();
        for (String set : dataParallel.keySet()) {
            s.append("== data-parallel, ").append(set).append('\n');
            if (sp.where(sp.stringColumn("set").isEqualTo(set).and(sp.stringColumn("route").isEqualTo("nccl"))).rowCount() == 0) {
                s.append("  no NCCL run on 2 or more GPUs: the targets are not measured\n");
            }
            for (Row row : sp) {
                if (!row.getString("set").equals(set) || !row.getString("route").equals("nccl")) continue;
                int n = row.getInt("gpus");
                double mine = row.getDouble("speedup"), want = 0.95 * n;
                s.append(String.format(Locale.ROOT, "  nccl x%d speedup %.3fx (rounds %.3f-%.3f) >= %.2fx: %s%n", n, mine,
                        row.getDouble("speedup_lo"), row.getDouble("speedup_hi"), want, verdict(mine >= want)));
                for (Row other : sp) {
                    if (other.getString("set").equals(set) && other.getInt("gpus") == n && other.getString("route").startsWith("ddp")) {
                        s.append(String.format(Locale.ROOT, "  nccl x%d >= PyTorch %s's %.3fx: %s%n", n, other.getString("route"),
                                other.getDouble("speedup"), verdict(mine >= other.getDouble("speedup"))));
                    }
                }
                double d = row.getDouble("acc_vs_1gpu_points");
                s.append(String.format(Locale.ROOT, "  nccl x%d test accuracy %+.2f points from 1 GPU, within 0.5: %s%n", n, d, verdict(Math.abs(d) <= 0.5)));
            }
        }
        Table ratios = ratioTable();
        if (ratios.rowCount() > 0) {
            s.append("== busbw, NCCL through the toolkit / torch.distributed, median of rounds, sizes from 1 MiB\n");
            // (a Tablesaw Row is a cursor: keep its values, not the Row)
            Map<String, List<double[]>> groups = new TreeMap<>();
            for (Row r : ratios) {
                groups.computeIfAbsent(String.format(Locale.ROOT, "%s on %d GPUs", r.getString("collective"), r.getInt("gpus")), k -> new ArrayList<>())
                        .add(new double[] {r.getLong("size_bytes"), r.getDouble("ratio")});
            }
            for (Map.Entry<String, List<double[]>> g : groups.entrySet()) {
                List<String> low = new ArrayList<>();
                double min = Double.POSITIVE_INFINITY;
                for (double[] v : g.getValue()) {
                    min = Math.min(min, v[1]);
                    if (!(v[1] >= 1.0)) low.add(BenchSpec.formatBytes((long) v[0]) + String.format(Locale.ROOT, " (%.3f)", v[1]));
                }
                s.append(String.format(Locale.ROOT, "  %-28s >= 1.00 at every size (%d sizes, lowest %.3f): %s%n", g.getKey(), g.getValue().size(), min,
                        low.isEmpty() ? "MET" : "MISSED at " + String.join(", ", low)));
            }
        }
        if (wrongRows() > 0) s.append("  WRONG RESULTS in ").append(wrongRows()).append(" bandwidth rows (see busbw.csv, column wrong)\n");
        return s.toString();
    }

    private static String verdict(boolean ok) {
        return ok ? "MET" : "NOT MET";
    }

    /**
     * Writes {@code out}: speedup.csv, busbw.csv, busbw-ratio.csv, targets.txt, README.md (a skeleton to finish by
     * hand: machine, date, commit and command filled in), the run's tests-counts.txt and summary.txt, and the charts
     * unless {@code charts} is false. Returns the files written.
     */
    public List<Path> write(Path out, boolean charts) throws IOException {
        Files.createDirectories(out);
        List<Path> files = new ArrayList<>();
        Table sp = speedupTable(), ratios = ratioTable();
        if (sp.rowCount() > 0) files.add(csv(sp, out.resolve("speedup.csv")));
        if (busbw.rowCount() > 0) {
            files.add(csv(busbw, out.resolve("busbw.csv")));
            files.add(csv(ratios, out.resolve("busbw-ratio.csv")));
        }
        Path t = out.resolve("targets.txt");
        Files.writeString(t, targets());
        files.add(t);
        for (String keep : List.of("tests-counts.txt", "summary.txt", "machine.txt")) {
            Path f = run.resolve(keep);
            if (Files.isRegularFile(f)) files.add(Files.copy(f, out.resolve(keep), java.nio.file.StandardCopyOption.REPLACE_EXISTING));
        }
        if (charts) files.addAll(ScalingPlots.write(this, out));
        Path readme = out.resolve("README.md");
        Files.writeString(readme, ScalingReadme.text(this, out, files));
        files.add(readme);
        return files;
    }

    private static Path csv(Table t, Path f) {
        t.write().csv(f.toFile());
        return f;
    }
}
