package org.mpi2nccl.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The harness's rows as a Tablesaw table, a CSV file, nccl-tests' text layout, and an XChart plot of busbw
 * against size (log-log) with one line per communicator.
 */
public final class BenchResults {
    private final List<BenchRow> rows;

    public BenchResults(List<BenchRow> rows) {
        this.rows = List.copyOf(rows);
    }

    public List<BenchRow> rows() {
        return rows;
    }

    /** Rows of several runs (e.g. one per communicator) together. */
    public static BenchResults concat(List<BenchResults> parts) {
        List<BenchRow> all = new ArrayList<>();
        parts.forEach(p -> all.addAll(p.rows));
        return new BenchResults(all);
    }

    /** One row per measurement; column names as in the CSV. */
    public Table table() {
        Table t = Table.create("bandwidth");
        StringColumn comm = StringColumn.create("communicator");
        StringColumn coll = StringColumn.create("collective");
        IntColumn ranks = IntColumn.create("ranks");
        StringColumn type = StringColumn.create("type");
        StringColumn op = StringColumn.create("redop");
        IntColumn root = IntColumn.create("root");
        LongColumn bytes = LongColumn.create("size_bytes");
        LongColumn count = LongColumn.create("count");
        StringColumn place = StringColumn.create("placement");
        IntColumn iters = IntColumn.create("iters");
        DoubleColumn time = DoubleColumn.create("time_us");
        DoubleColumn alg = DoubleColumn.create("algbw_GBps");
        DoubleColumn bus = DoubleColumn.create("busbw_GBps");
        LongColumn wrong = LongColumn.create("wrong");
        DoubleColumn d2h = DoubleColumn.create("d2h_us");
        DoubleColumn mid = DoubleColumn.create("host_collective_us");
        DoubleColumn h2d = DoubleColumn.create("h2d_us");
        for (BenchRow r : rows) {
            comm.append(r.communicator());
            coll.append(r.collective());
            ranks.append(r.ranks());
            type.append(r.type());
            op.append(r.op());
            root.append(r.root());
            bytes.append(r.bytes());
            count.append(r.count());
            place.append(r.placement());
            iters.append(r.iters());
            time.append(r.timeUs());
            alg.append(r.algbw());
            bus.append(r.busbw());
            wrong.append(r.wrong());
            d2h.append(r.d2hUs());
            mid.append(r.collectiveUs());
            h2d.append(r.h2dUs());
        }
        return t.addColumns(comm, coll, ranks, type, op, root, bytes, count, place, iters, time, alg, bus, wrong, d2h, mid, h2d);
    }

    /** Reads rows back from a table with the columns of {@link #table()} (a CSV written by {@link #writeCsv}). */
    public static BenchResults fromTable(Table t) {
        List<BenchRow> out = new ArrayList<>();
        for (Row r : t) {
            out.add(new BenchRow(r.getString("communicator"), r.getString("collective"), num(r, "ranks").intValue(),
                    r.getString("type"), r.getString("redop"), num(r, "root").intValue(), num(r, "size_bytes").longValue(),
                    num(r, "count").longValue(), r.getString("placement"), num(r, "iters").intValue(),
                    num(r, "time_us").doubleValue(), num(r, "algbw_GBps").doubleValue(), num(r, "busbw_GBps").doubleValue(),
                    num(r, "wrong").longValue(), num(r, "d2h_us").doubleValue(), num(r, "host_collective_us").doubleValue(),
                    num(r, "h2d_us").doubleValue()));
        }
        return new BenchResults(out);
    }

    private static Number num(Row r, String column) {
        Object o = r.getObject(column);
        return o instanceof Number n ? n : Double.NaN;
    }

    public void writeCsv(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        table().write().csv(file.toFile());
    }

    /**
     * Reads a CSV written by {@link #writeCsv} (or a peer writing the same columns). Read through a UTF-8
     * reader: given a file, Tablesaw would guess its character set with ICU4J, which the GPU bundle leaves out.
     */
    public static BenchResults readCsv(Path file) throws IOException {
        try (java.io.Reader r = Files.newBufferedReader(file, java.nio.charset.StandardCharsets.UTF_8)) {
            return fromTable(Table.read().usingOptions(tech.tablesaw.io.csv.CsvReadOptions.builder(r).tableName(file.toString())));
        }
    }

    /**
     * nccl-tests' layout: one line per size with the out-of-place and in-place columns side by side, one
     * block per communicator and collective.
     */
    public String text() {
        StringBuilder s = new StringBuilder();
        Map<String, List<BenchRow>> blocks = new LinkedHashMap<>();
        for (BenchRow r : rows) {
            blocks.computeIfAbsent(r.communicator() + " " + r.collective() + " on " + r.ranks() + " ranks", k -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<String, List<BenchRow>> b : blocks.entrySet()) {
            s.append("# ").append(b.getKey()).append('\n');
            s.append(String.format(Locale.ROOT, "# %12s %12s %8s %6s %5s   %10s %8s %8s %7s   %10s %8s %8s %7s%n",
                    "size", "count", "type", "redop", "root", "time(us)", "algbw", "busbw", "#wrong",
                    "time(us)", "algbw", "busbw", "#wrong"));
            Map<Long, BenchRow[]> bySize = new LinkedHashMap<>();
            for (BenchRow r : b.getValue()) {
                bySize.computeIfAbsent(r.bytes(), k -> new BenchRow[2])[r.placement().equals("in-place") ? 1 : 0] = r;
            }
            for (BenchRow[] pair : bySize.values()) {
                BenchRow any = pair[0] != null ? pair[0] : pair[1];
                s.append(String.format(Locale.ROOT, "  %12d %12d %8s %6s %5d", any.bytes(), any.count(), any.type(),
                        any.op(), any.root()));
                for (BenchRow r : pair) {
                    if (r == null) {
                        s.append(String.format(Locale.ROOT, "   %10s %8s %8s %7s", "n/a", "", "", ""));
                    } else {
                        s.append(String.format(Locale.ROOT, "   %10.1f %8.2f %8.2f %7s", r.timeUs(), r.algbw(), r.busbw(),
                                r.wrong() < 0 ? "N/A" : Long.toString(r.wrong())));
                    }
                }
                s.append('\n');
            }
        }
        return s.toString();
    }

    /** True when every checked row had zero wrong elements (and at least one row was checked). */
    public boolean allCorrect() {
        return rows.stream().anyMatch(r -> r.wrong() >= 0) && rows.stream().allMatch(r -> r.wrong() <= 0);
    }

    /**
     * busbw (GB/s) against size (bytes), both on log axes, one line per communicator ({@code placement}:
     * "out-of-place" or "in-place"; one collective per chart: the first one in the rows unless named).
     */
    public XYChart chart(String title, String collective, String placement) {
        String coll = collective != null ? collective : rows.isEmpty() ? "allReduce" : rows.get(0).collective();
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title)
                .xAxisTitle("size (bytes)").yAxisTitle("bus bandwidth (GB/s)").build();
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setMarkerSize(6);
        Map<String, List<BenchRow>> series = new LinkedHashMap<>();
        for (BenchRow r : rows) {
            if (r.collective().equals(coll) && r.placement().equals(placement) && r.busbw() > 0 && Double.isFinite(r.busbw())) {
                series.computeIfAbsent(r.communicator(), k -> new ArrayList<>()).add(r);
            }
        }
        for (Map.Entry<String, List<BenchRow>> e : series.entrySet()) {
            List<BenchRow> rs = new ArrayList<>(e.getValue());
            rs.sort(Comparator.comparingLong(BenchRow::bytes));
            double[] x = rs.stream().mapToDouble(BenchRow::bytes).toArray();
            double[] y = rs.stream().mapToDouble(BenchRow::busbw).toArray();
            chart.addSeries(e.getKey(), x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        return chart;
    }

    /** Writes {@link #chart} as a PNG. */
    public void writePng(Path file, String title, String collective, String placement) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(chart(title, collective, placement), file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /**
     * {@link #writePng}, or a line saying why not: drawing text needs fonts, and a bare GPU node may have none
     * ("Fontconfig head is null"). The numbers are in the CSV either way; plot it elsewhere with
     * {@code mpi2nccl bandwidth-compare}.
     */
    public boolean tryWritePng(Path file, String title, String collective, String placement) {
        return ChartFiles.trySavePng(chart(title, collective, placement), file, "plot the CSV elsewhere with bandwidth-compare");
    }

    /**
     * Size by size: busbw of communicators a and b (in place, else out of place) and a/b, one section per collective
     * and rank count (their sizes must not mix), each ending with its lowest ratio.
     */
    public String ratioTable(String a, String b, long from) {
        Map<String, Map<Long, double[]>> sections = new TreeMap<>();
        for (BenchRow r : rows) {
            if (r.bytes() < from || !(r.communicator().equals(a) || r.communicator().equals(b))) {
                continue;
            }
            double[] v = sections.computeIfAbsent(r.collective() + ", " + r.ranks() + " ranks", k -> new TreeMap<>())
                    .computeIfAbsent(r.bytes(), k -> new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN});
            int col = r.communicator().equals(a) ? 0 : 1;
            v[r.placement().equals("in-place") ? col : col + 2] = r.busbw();
        }
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "# busbw (GB/s), %s vs %s%n", a, b));
        for (Map.Entry<String, Map<Long, double[]>> section : sections.entrySet()) {
            s.append(String.format(Locale.ROOT, "# %s%n# %12s %10s %10s %8s%n", section.getKey(),
                    "size", a.length() > 10 ? a.substring(0, 10) : a, b.length() > 10 ? b.substring(0, 10) : b, "ratio"));
            double min = Double.POSITIVE_INFINITY;
            for (Map.Entry<Long, double[]> e : section.getValue().entrySet()) {
                double[] v = e.getValue();
                double x = Double.isNaN(v[0]) ? v[2] : v[0];
                double y = Double.isNaN(v[1]) ? v[3] : v[1];
                double q = x / y;
                if (Double.isFinite(q)) {
                    min = Math.min(min, q);
                }
                s.append(String.format(Locale.ROOT, "  %12s %10.2f %10.2f %8.3f%n", BenchSpec.formatBytes(e.getKey()), x, y, q));
            }
            s.append(String.format(Locale.ROOT, "# lowest ratio (%s): %.3f%n", section.getKey(), min));
        }
        return s.toString();
    }
}
