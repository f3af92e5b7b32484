package org.mpi2nccl.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpi2nccl.html.Html;
import org.mpi2nccl.html.HtmlTable;
import org.knowm.xchart.internal.chartpart.Chart;
import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Writes the experiment's results into a folder: {@code epochs.csv} (every epoch of every run),
 * {@code summary.csv} (one row per run), the charts as PNG and {@code index.html} showing all of it with the
 * settings and the machine. {@code build/report/} for {@code ./build.sh run}.
 */
public final class SpeedupReport {
    private SpeedupReport() {}

    /** The charts by file name (without .png). */
    public static Map<String, Chart<?, ?>> charts(SpeedupResults r) {
        Map<String, Chart<?, ?>> m = new LinkedHashMap<>();
        m.put("speedup", SpeedupPlots.speedup(r));
        m.put("efficiency", SpeedupPlots.efficiency(r));
        for (String route : r.routes()) if (r.hasPhases(route)) m.put("breakdown-" + route, SpeedupPlots.breakdown(r, route));
        if (r.routes().isEmpty()) m.put("breakdown-single", SpeedupPlots.breakdown(r, SpeedupResults.SINGLE));
        m.put("collectives", SpeedupPlots.collectives(r));
        m.put("accuracy", SpeedupPlots.accuracy(r));
        return m;
    }

    /** Writes everything into {@code dir} (created if needed); returns the files written. */
    public static List<Path> write(SpeedupResults r, Path dir, String command) throws IOException {
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        Path epochs = dir.resolve("epochs.csv"), summary = dir.resolve("summary.csv");
        r.epochs().write().csv(epochs.toFile());
        r.summary().write().csv(summary.toFile());
        files.add(epochs);
        files.add(summary);
        if (r.perRank().rowCount() > 0) {
            Path ranks = dir.resolve("ranks.csv");
            r.perRank().write().csv(ranks.toFile());
            files.add(ranks);
        }
        Map<String, Chart<?, ?>> charts = charts(r);
        for (Map.Entry<String, Chart<?, ?>> e : charts.entrySet()) {
            Path png = dir.resolve(e.getKey() + ".png");
            if (ChartFiles.trySavePng(e.getValue(), png, "redraw later with: mpi2nccl run --from-csv " + epochs)) files.add(png);
        }
        Path meta = dir.resolve("run.txt");
        Files.writeString(meta, "command: " + command + "\nmachine: " + r.machine() + "\nsettings: " + r.settings()
                + "\nfailed runs: " + (r.failures().isEmpty() ? "none" : String.join(" | ", r.failures())) + "\n", StandardCharsets.UTF_8);
        files.add(meta);
        Path html = dir.resolve("index.html");
        Files.writeString(html, html(r, charts.keySet(), command), StandardCharsets.UTF_8);
        files.add(html);
        return files;
    }

    static String html(SpeedupResults r, Iterable<String> charts, String command) {
        StringBuilder b = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mpi2nccl speedup</title>\n"
                + "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:13px}"
                + "td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#eee}td.s{text-align:left}"
                + "img{max-width:48%;margin:4px}</style></head><body>\n");
        b.append("<h1>Data-parallel speedup</h1>\n<p>").append(Html.escape(r.settings())).append("<br>Machine: ")
                .append(Html.escape(r.machine())).append("<br>Command: <code>").append(Html.escape(command)).append("</code></p>\n");
        if (!r.failures().isEmpty()) {
            b.append("<p style=\"color:#a00\">Failed runs:</p><ul>");
            for (String f : r.failures()) b.append("<li>").append(Html.escape(f)).append("</li>");
            b.append("</ul>\n");
        }
        b.append("<h2>Summary</h2>\n").append(table(r.summary()));
        b.append("<p>speedup: examples per second of the median epoch over the single rank's"
                + (r.rounds() > 1 ? " (all " + r.rounds() + " rounds pooled; speedup_lo and speedup_hi: the lowest and highest of a "
                        + "single round, against the single rank's same round; speedup_paired: the median of the rounds' speedups, "
                        + "each round against its own single rank, which a machine or peer drifting between rounds does not skew)"
                        : "") + "; efficiency = speedup / ranks; "
                + "acc_vs_1rank_points: last epoch's test accuracy minus the single rank's, in percentage points; "
                + "phase columns: mean seconds per epoch (comm_s is the communication backward did not hide; d2h_s, "
                + "collective_s, h2d_s are the collectives' own phases, overlapped with backward).</p>\n");
        Table steps = r.perStep();
        if (steps.rowCount() > 1) {
            b.append("<h2>Per step</h2>\n").append(table(steps));
            b.append("<p>microseconds per training step (a phase's seconds per epoch over the epoch's steps), mean of the epochs "
                    + "after the first; extra_us and the d_ columns: what a step of the run takes beyond a step of the single rank, "
                    + "which keeps the speedup under the number of ranks (each rank does one rank's work per step).</p>\n");
        }
        for (String c : charts) b.append("<img src=\"").append(c).append(".png\" alt=\"").append(c).append("\">\n");
        b.append("<h2>Every epoch</h2>\n").append(table(r.epochs()));
        return b.append("</body></html>\n").toString();
    }

    /** A table as HTML, numbers rounded for reading (the CSV files keep every digit). */
    static String table(Table t) {
        HtmlTable html = new HtmlTable().header(t.columnNames().toArray(String[]::new));
        for (Row row : t) {
            List<HtmlTable.Cell> cells = new ArrayList<>();
            for (Column<?> c : t.columns()) {
                // class s: the page's style sheet aligns text to the left, numbers stay on the right
                HtmlTable.Cell cell = HtmlTable.cell(format(row.getObject(c.name())));
                cells.add(c.type() == ColumnType.STRING ? cell.cssClass("s") : cell);
            }
            html.row(cells);
        }
        return html.html() + "\n";
    }

    static String format(Object v) {
        if (v instanceof Double d) {
            double a = Math.abs(d);
            return a == 0 ? "0" : a >= 1000 ? String.format(Locale.ROOT, "%.0f", d) : a >= 1 ? String.format(Locale.ROOT, "%.3f", d)
                    : String.format(Locale.ROOT, "%.4f", d);
        }
        return String.valueOf(v);
    }

    /** The summary as fixed-width text for the terminal (selected columns, rounded). */
    public static String text(SpeedupResults r) {
        Table s = r.summary();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-10s %5s %9s %10s %8s %7s %9s %8s %9s %9s %9s %9s %9s%n", "route", "ranks", "epoch_s",
                "samples/s", "speedup", "effic.", "test_acc", "vs_1rank", "forward", "backward", "comm", "optim", "other"));
        for (Row row : s) {
            if (Double.isNaN(row.getDouble("speedup"))) {
                b.append(String.format(Locale.ROOT, "%-10s %5d %9.2f %10.0f %8s %7s %8.2f%% %9s %9.2f %9.2f %9.2f %9.2f %9.2f%n",
                        row.getString("route"), row.getInt("ranks"), row.getDouble("epoch_s"), row.getDouble("samples_per_s"), "-", "-",
                        100 * row.getDouble("test_acc"), "-", row.getDouble("forward_s"), row.getDouble("backward_s"),
                        row.getDouble("comm_s"), row.getDouble("optimizer_s"), row.getDouble("other_s")));
                continue;
            }
            b.append(String.format(Locale.ROOT, "%-10s %5d %9.2f %10.0f %7.2fx %6.0f%% %8.2f%% %+7.2fpt %9.2f %9.2f %9.2f %9.2f %9.2f%n",
                    row.getString("route"), row.getInt("ranks"), row.getDouble("epoch_s"), row.getDouble("samples_per_s"),
                    row.getDouble("speedup"), 100 * row.getDouble("efficiency"), 100 * row.getDouble("test_acc"),
                    row.getDouble("acc_vs_1rank_points"), row.getDouble("forward_s"), row.getDouble("backward_s"),
                    row.getDouble("comm_s"), row.getDouble("optimizer_s"), row.getDouble("other_s")));
        }
        b.append("(phase columns: seconds per epoch; comm = communication not hidden behind backward)");
        if (r.rounds() > 1) {
            b.append(String.format(Locale.ROOT, "%n%d rounds, every run once per round in turn; the speedup pools them. A single round's"
                    + " (each against its own round's one rank), and their median:", r.rounds()));
            for (Row row : s) {
                if (Double.isNaN(row.getDouble("speedup_lo")) || row.getInt("ranks") == 1) continue;
                b.append(String.format(Locale.ROOT, "%n  %-10s x%-3d %.3fx to %.3fx, median %.3fx", row.getString("route"), row.getInt("ranks"),
                        row.getDouble("speedup_lo"), row.getDouble("speedup_hi"), row.getDouble("speedup_paired")));
            }
        }
        Table steps = r.perStep();
        if (steps.rowCount() > 1 && !Double.isNaN(steps.doubleColumn("extra_us").getDouble(0))) {
            b.append(String.format(Locale.ROOT, "%nper step, against one rank's (microseconds, epochs after the first):"));
            for (Row row : steps) {
                b.append(String.format(Locale.ROOT, "%n  %-10s x%-3d %9.1f", row.getString("route"), row.getInt("ranks"),
                        row.getDouble("step_us")));
                if (row.getString("route").equals(SpeedupResults.SINGLE)) continue;
                b.append(String.format(Locale.ROOT, "  %+8.1f = forward %+.1f, backward %+.1f, comm %+.1f, optimizer %+.1f, other %+.1f",
                        row.getDouble("extra_us"), row.getDouble("d_forward_us"), row.getDouble("d_backward_us"),
                        row.getDouble("d_comm_us"), row.getDouble("d_optimizer_us"), row.getDouble("d_other_us")));
            }
        }
        return b.toString();
    }
}
