package org.mpi2nccl.bench;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The one-GPU training-step sweep of scripts/gpu/train-sweep.sh as a table, a CSV and a chart: the toolkit's step
 * eager and replayed from a CUDA graph ({@code bench-gpu --only train}) beside PyTorch eager, a whole-step CUDA graph
 * and torch.compile, and where the run has them cudnn.benchmark alone and a channels-last whole-step CUDA graph with
 * cudnn.benchmark (scripts/gpu/torch_peer.py), per batch, over alternating rounds.
 *
 * <p>Ratios are taken within a round (the same minutes on the same GPU), then the median over the rounds; above 1 the
 * toolkit is faster. The graphed step is set against PyTorch's best mode of that round, the eager step against
 * PyTorch eager.
 */
public final class TrainSweepReport {
    /** The ways a step is run: the side, the mode, and what the bench appends to the figure's name. */
    public enum Mode {
        TOOLKIT_EAGER("toolkit", "eager", ""), TOOLKIT_GRAPHED("toolkit", "graphed", " graphed"),
        TOOLKIT_EAGER_UNFUSED("toolkit", "eager unfused", " unfused"), TOOLKIT_GRAPHED_UNFUSED("toolkit", "graphed unfused", " unfused graphed"),
        TORCH_EAGER("torch", "eager", ""), TORCH_CUDNN_BENCHMARK("torch", "cudnn.benchmark", " cudnn.benchmark"),
        TORCH_GRAPH("torch", "cuda graph", " cuda graph"),
        TORCH_CHANNELS_LAST_GRAPH("torch", "channels-last cudnn.benchmark cuda graph", " channels-last cudnn.benchmark cuda graph"),
        TORCH_COMPILE("torch", "torch.compile", " torch.compile");

        final String side, mode, suffix;

        Mode(String side, String mode, String suffix) {
            this.side = side;
            this.mode = mode;
            this.suffix = suffix;
        }

        public String label() {
            return (side.equals("torch") ? "PyTorch" : side) + " " + mode;
        }
    }

    /** One step time: milliseconds per step (median of that run's steps). */
    public record Sample(int round, int batch, Mode mode, double ms) {}

    private static final Pattern NAME = Pattern.compile("cnn train step batch (\\d+) \\((\\d+),(\\d+)\\)(.*)");
    private static final Pattern ROUND = Pattern.compile("round-(\\d+)");

    private final List<Sample> samples;
    private final List<String> devices;

    TrainSweepReport(List<Sample> samples, List<String> devices) {
        this.samples = List.copyOf(samples);
        this.devices = List.copyOf(devices);
    }

    public List<Sample> samples() {
        return samples;
    }

    /**
     * Every bench JSON under {@code dir} ({@code round-N/} folders give the round; PyTorch's files have a
     * {@code torch} key). Throws IllegalArgumentException, naming the folder, when it holds no train figures.
     */
    public static TrainSweepReport read(Path dir) {
        if (!Files.isDirectory(dir)) throw new IllegalArgumentException(dir + " is not a folder: give the unpacked train-sweep run");
        List<Sample> out = new ArrayList<>();
        List<String> devices = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                JsonObject doc = JsonParser.parseString(Files.readString(f)).getAsJsonObject();
                if (!doc.has("results")) continue;
                boolean torch = doc.has("torch");
                int round = roundOf(dir.relativize(f));
                if (doc.has("device")) {
                    String d = (torch ? "torch " + doc.get("torch").getAsString() + ": " : "toolkit: ") + doc.get("device").getAsString();
                    if (!devices.contains(d)) devices.add(d);
                }
                for (JsonElement e : doc.getAsJsonArray("results")) {
                    JsonObject r = e.getAsJsonObject();
                    if (!"train".equals(r.get("group").getAsString())) continue;
                    Matcher m = NAME.matcher(r.get("name").getAsString());
                    if (!m.matches()) continue;
                    Mode mode = modeOf(torch, m.group(4));
                    if (mode != null) out.add(new Sample(round, Integer.parseInt(m.group(1)), mode, r.get("ms").getAsDouble()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("a bench JSON under " + dir + " is not readable: " + e.getMessage(), e);
        }
        if (out.isEmpty()) throw new IllegalArgumentException("no train-step figures under " + dir
                + ": run scripts/gpu/train-sweep.sh (bench-gpu --only train and torch_peer.py --only train) and unpack its tar there");
        return new TrainSweepReport(out, devices);
    }

    private static int roundOf(Path relative) {
        for (Path part : relative) {
            Matcher m = ROUND.matcher(part.toString());
            if (m.matches()) return Integer.parseInt(m.group(1));
        }
        return 1;
    }

    private static Mode modeOf(boolean torch, String suffix) {
        for (Mode m : Mode.values()) if (m.side.equals(torch ? "torch" : "toolkit") && m.suffix.equals(suffix)) return m;
        return null;     // the eager step's launch-bound figures, named otherwise
    }

    /** The modes the run has figures of, in the table's order. */
    public List<Mode> modes() {
        return java.util.Arrays.stream(Mode.values()).filter(m -> samples.stream().anyMatch(x -> x.mode == m)).toList();
    }

    /** Batches in order. */
    public List<Integer> batches() {
        return samples.stream().map(Sample::batch).distinct().sorted().toList();
    }

    /** Median milliseconds over the rounds, or NaN where the mode never ran at that batch. */
    public double medianMs(int batch, Mode mode) {
        return median(samples.stream().filter(s -> s.batch == batch && s.mode == mode).mapToDouble(Sample::ms).toArray());
    }

    /** Per round, PyTorch's fastest mode's time over the toolkit's graphed step's; then the median. */
    public double graphedVsBest(int batch) {
        return median(perRound(batch, Mode.TOOLKIT_GRAPHED, TORCH_MODES));
    }

    /** Per round, PyTorch eager's time over the toolkit's eager step's; then the median. */
    public double eagerVsEager(int batch) {
        return median(perRound(batch, Mode.TOOLKIT_EAGER, EnumSet.of(Mode.TORCH_EAGER)));
    }

    private static final Set<Mode> TORCH_MODES = EnumSet.of(Mode.TORCH_EAGER, Mode.TORCH_CUDNN_BENCHMARK, Mode.TORCH_GRAPH,
            Mode.TORCH_CHANNELS_LAST_GRAPH, Mode.TORCH_COMPILE);

    /** The ratio of each round where both sides ran: the fastest of {@code theirs} in that round / {@code ours}. */
    double[] perRound(int batch, Mode ours, Set<Mode> theirs) {
        Map<Integer, Map<Mode, Double>> byRound = new TreeMap<>();
        for (Sample s : samples) if (s.batch == batch) byRound.computeIfAbsent(s.round, k -> new EnumMap<>(Mode.class)).put(s.mode, s.ms);
        List<Double> out = new ArrayList<>();
        for (Map<Mode, Double> round : byRound.values()) {
            Double mine = round.get(ours);
            double best = round.entrySet().stream().filter(e -> theirs.contains(e.getKey())).mapToDouble(Map.Entry::getValue)
                    .min().orElse(Double.NaN);
            if (mine != null && !Double.isNaN(best)) out.add(best / mine);
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** PyTorch's fastest mode at {@code batch} by median time. */
    public Mode bestTorch(int batch) {
        Mode best = null;
        for (Mode m : TORCH_MODES) {
            double ms = medianMs(batch, m);
            if (!Double.isNaN(ms) && (best == null || ms < medianMs(batch, best))) best = m;
        }
        return best;
    }

    private static double median(double[] v) {
        return v.length == 0 ? Double.NaN : new Median().evaluate(v);
    }

    /** The Markdown table: ms per step (median of rounds) per mode, the two ratios and whether each meets 1.0x. */
    public String table() {
        int rounds = new TreeSet<>(samples.stream().map(Sample::round).toList()).size();
        StringBuilder s = new StringBuilder();
        s.append("ms per step, median of ").append(rounds).append(rounds == 1 ? " round" : " rounds")
                .append("; ratio = PyTorch's time / the toolkit's, per round, then the median (above 1: the toolkit is faster)\n");
        for (String d : devices) s.append("- ").append(d).append('\n');
        List<Mode> shown = modes();
        s.append("\n| batch |");
        for (Mode m : shown) s.append(' ').append(m.label()).append(" |");
        s.append(" graphed vs PyTorch's best | eager vs PyTorch eager |\n|");
        s.append(" --- |".repeat(shown.size() + 3)).append('\n');
        for (int b : batches()) {
            s.append("| ").append(b).append(" |");
            for (Mode m : shown) s.append(' ').append(fmt(medianMs(b, m), "%.3f")).append(" |");
            Mode best = bestTorch(b);
            s.append(' ').append(verdict(graphedVsBest(b))).append(best == null ? "" : " (best: " + best.mode + ")").append(" |");
            s.append(' ').append(verdict(eagerVsEager(b))).append(" |\n");
        }
        return s.toString();
    }

    private static String verdict(double ratio) {
        if (Double.isNaN(ratio)) return "-";
        return String.format("%.2fx %s", ratio, ratio >= 1.0 ? "meets >= 1.0x" : "MISSES >= 1.0x");
    }

    private static String fmt(double v, String pattern) {
        return Double.isNaN(v) ? "-" : String.format(pattern, v);
    }

    /** Every sample as a row: round, batch, side, mode, ms, samples/s. */
    public Table samplesTable() {
        Table t = Table.create("train-sweep", IntColumn.create("round"), IntColumn.create("batch"), StringColumn.create("side"),
                StringColumn.create("mode"), DoubleColumn.create("ms"), DoubleColumn.create("samples_per_s"));
        for (Sample x : samples) {
            t.intColumn("round").append(x.round);
            t.intColumn("batch").append(x.batch);
            t.stringColumn("side").append(x.mode.side);
            t.stringColumn("mode").append(x.mode.mode);
            t.doubleColumn("ms").append(x.ms);
            t.doubleColumn("samples_per_s").append(x.batch / (x.ms * 1e-3));
        }
        return t;
    }

    /** Samples per second (median of rounds) against the batch, one line per mode, log-scaled batch axis. */
    public XYChart chart() {
        XYChart c = new XYChartBuilder().width(860).height(540).title("Training step on one GPU: samples/s by batch")
                .xAxisTitle("batch").yAxisTitle("samples/s (median of rounds)").build();
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setXAxisDecimalPattern("0");
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (Mode m : modes()) {
            List<Double> x = new ArrayList<>(), y = new ArrayList<>();
            for (int b : batches()) {
                double ms = medianMs(b, m);
                if (Double.isNaN(ms)) continue;
                x.add((double) b);
                y.add(b / (ms * 1e-3));
            }
            if (!x.isEmpty()) c.addSeries(m.label(), x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        return c;
    }

    /** summary.md, train-sweep.csv and (with {@code charts}) train-sweep.png in {@code out}; returns the files written. */
    public List<Path> write(Path out, boolean charts) throws IOException {
        Files.createDirectories(out);
        List<Path> files = new ArrayList<>();
        Path md = out.resolve("summary.md");
        Files.writeString(md, table());
        files.add(md);
        Path csv = out.resolve("train-sweep.csv");
        samplesTable().write().csv(csv.toFile());
        files.add(csv);
        Path png = out.resolve("train-sweep.png");
        if (charts && ChartFiles.trySavePng(chart(), png, "run mpi2nccl train-sweep-report again where fonts are")) files.add(png);
        return files;
    }
}
