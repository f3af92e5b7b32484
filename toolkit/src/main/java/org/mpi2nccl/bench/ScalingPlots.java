package org.mpi2nccl.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/** The charts of a {@link ScalingReport}: speedup against GPU count with ideal scaling, and busbw ratio against size. */
public final class ScalingPlots {
    private static final int W = 860, H = 540;
    private static final BasicStroke DASHED = new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);

    private ScalingPlots() {}

    /** Speedup over one GPU (median of the rounds' own) against the GPU count, one line per route, and y = x. */
    public static XYChart speedup(Table speedup, String set, String machine) {
        XYChart c = new XYChartBuilder().width(W).height(H).title("Data-parallel speedup, " + set + (machine.isEmpty() ? "" : " — " + machine))
                .xAxisTitle("GPUs").yAxisTitle("speedup over 1 GPU (x)").build();
        style(c);
        c.getStyler().setXAxisDecimalPattern("0");
        Map<String, List<double[]>> lines = new LinkedHashMap<>();
        TreeSet<Double> counts = new TreeSet<>(List.of(1.0));
        for (Row r : speedup) {
            if (!r.getString("set").equals(set)) continue;
            String route = r.getString("route").startsWith("1 GPU") ? null : r.getString("route");
            counts.add((double) r.getInt("gpus"));
            if (route == null) continue;
            lines.computeIfAbsent(route, k -> new ArrayList<>(List.of(new double[] {1, 1})));
            if (r.getInt("gpus") > 1) lines.get(route).add(new double[] {r.getInt("gpus"), r.getDouble("speedup")});
        }
        for (Map.Entry<String, List<double[]>> e : lines.entrySet()) {
            List<Double> x = new ArrayList<>(), y = new ArrayList<>();
            e.getValue().stream().sorted((a, b) -> Double.compare(a[0], b[0])).forEach(p -> {
                x.add(p[0]);
                y.add(p[1]);
            });
            c.addSeries(e.getKey(), x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        List<Double> all = new ArrayList<>(counts);
        XYSeries ideal = c.addSeries("ideal (x = GPUs)", all, all);
        ideal.setMarker(SeriesMarkers.NONE);
        ideal.setLineColor(Color.GRAY);
        ideal.setLineStyle(DASHED);
        return c;
    }

    /** busbw of NCCL through the toolkit over torch.distributed's, against size, one line per GPU count; y = 1 dashed. */
    public static XYChart ratio(Table ratios, String collective) {
        XYChart c = new XYChartBuilder().width(W).height(H).title("busbw, toolkit NCCL / torch.distributed — " + collective)
                .xAxisTitle("size (bytes)").yAxisTitle("busbw ratio (median of rounds)").build();
        style(c);
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setXAxisDecimalPattern("0.#E0");
        Map<Integer, List<double[]>> lines = new java.util.TreeMap<>();
        double lo = Double.POSITIVE_INFINITY, hi = 0;
        for (Row r : ratios) {
            if (!r.getString("collective").equals(collective)) continue;
            lines.computeIfAbsent(r.getInt("gpus"), k -> new ArrayList<>()).add(new double[] {r.getLong("size_bytes"), r.getDouble("ratio")});
            lo = Math.min(lo, r.getLong("size_bytes"));
            hi = Math.max(hi, r.getLong("size_bytes"));
        }
        for (Map.Entry<Integer, List<double[]>> e : lines.entrySet()) {
            List<Double> x = new ArrayList<>(), y = new ArrayList<>();
            e.getValue().stream().sorted((a, b) -> Double.compare(a[0], b[0])).forEach(p -> {
                x.add(p[0]);
                y.add(p[1]);
            });
            c.addSeries(e.getKey() + " GPUs", x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        if (hi > 0) {
            XYSeries parity = c.addSeries("parity", List.of(lo, hi), List.of(1.0, 1.0));
            parity.setMarker(SeriesMarkers.NONE);
            parity.setLineColor(Color.GRAY);
            parity.setLineStyle(DASHED);
        }
        return c;
    }

    /** speedup-SET.png for each data set, busbw-ratio-COLLECTIVE.png for each collective (charts that fail to draw say why). */
    static List<Path> write(ScalingReport r, Path out) {
        List<Path> files = new ArrayList<>();
        Table sp = r.speedupTable();
        String machine = r.machine().getOrDefault("gpus", "").isEmpty() ? "" : r.machine().get("gpus") + "x " + r.machine().getOrDefault("gpu", "GPU");
        for (String set : r.dataParallel().keySet()) {
            Path f = out.resolve("speedup-" + set + ".png");
            if (ChartFiles.trySavePng(speedup(sp, set, machine), f, "run scaling-report where fonts are")) files.add(f);
        }
        Table ratios = r.ratioTable();
        if (ratios.rowCount() > 0) {
            for (String coll : ratios.stringColumn("collective").unique().asList()) {
                Path f = out.resolve("busbw-ratio-" + coll + ".png");
                if (ChartFiles.trySavePng(ratio(ratios, coll), f, "run scaling-report where fonts are")) files.add(f);
            }
        }
        return files;
    }

    private static void style(XYChart c) {
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartBackgroundColor(Color.WHITE);
        c.getStyler().setPlotGridLinesVisible(true);
        c.getStyler().setMarkerSize(7);
    }
}
