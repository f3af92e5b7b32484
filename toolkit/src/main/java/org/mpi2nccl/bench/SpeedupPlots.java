package org.mpi2nccl.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/** The experiment's charts (XChart): speedup with the ideal line, efficiency, time breakdown per route, accuracy. */
public final class SpeedupPlots {
    private static final int W = 820, H = 520;

    private SpeedupPlots() {}

    /** Speedup over one rank against the number of ranks, one line per route, and the ideal y = x. */
    public static XYChart speedup(SpeedupResults r) {
        XYChart c = new XYChartBuilder().width(W).height(H).title("Speedup over one rank — " + r.machine())
                .xAxisTitle("ranks").yAxisTitle("speedup (x)").build();
        style(c);
        Table s = r.summary();
        List<Double> all = new ArrayList<>(List.of(1.0));
        for (String route : r.routes()) {
            List<Double> x = new ArrayList<>(List.of(1.0)), y = new ArrayList<>(List.of(1.0));
            for (Row row : s) {
                if (!row.getString("route").equals(route) || row.getInt("ranks") == 1) continue;
                x.add((double) row.getInt("ranks"));
                y.add(row.getDouble("speedup"));
                if (!all.contains((double) row.getInt("ranks"))) all.add((double) row.getInt("ranks"));
            }
            c.addSeries(route, x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        all.sort(Double::compare);
        XYSeries ideal = c.addSeries("ideal", all, all);
        ideal.setMarker(SeriesMarkers.NONE);
        ideal.setLineColor(Color.GRAY);
        ideal.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        return c;
    }

    /** Parallel efficiency (speedup / ranks) in percent. */
    public static XYChart efficiency(SpeedupResults r) {
        XYChart c = new XYChartBuilder().width(W).height(H).title("Parallel efficiency — " + r.machine())
                .xAxisTitle("ranks").yAxisTitle("efficiency (%)").build();
        style(c);
        Table s = r.summary();
        List<Double> all = new ArrayList<>(List.of(1.0));
        for (String route : r.routes()) {
            List<Double> x = new ArrayList<>(List.of(1.0)), y = new ArrayList<>(List.of(100.0));
            for (Row row : s) {
                if (!row.getString("route").equals(route) || row.getInt("ranks") == 1) continue;
                x.add((double) row.getInt("ranks"));
                y.add(100 * row.getDouble("efficiency"));
                if (!all.contains((double) row.getInt("ranks"))) all.add((double) row.getInt("ranks"));
            }
            c.addSeries(route, x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        all.sort(Double::compare);
        XYSeries ideal = c.addSeries("ideal", all, all.stream().map(v -> 100.0).toList());
        ideal.setMarker(SeriesMarkers.NONE);
        ideal.setLineColor(Color.GRAY);
        c.getStyler().setYAxisMin(0.0);
        return c;
    }

    /**
     * Seconds per epoch split into phases, one stacked bar per rank count, for one route (its 1-rank bar is the
     * shared single-rank run).
     */
    public static CategoryChart breakdown(SpeedupResults r, String route) {
        CategoryChart c = new CategoryChartBuilder().width(W).height(H).title("Where an epoch's time goes — " + route + " route")
                .xAxisTitle("ranks").yAxisTitle("seconds per epoch").build();
        style(c);
        c.getStyler().setStacked(true);
        Table s = r.summary();
        List<String> cats = new ArrayList<>();
        for (Row row : s) {
            if (row.getString("route").equals(SpeedupResults.SINGLE) || row.getString("route").equals(route)) {
                cats.add(Integer.toString(row.getInt("ranks")));
            }
        }
        String[][] parts = {{"forward", "forward_s"}, {"backward", "backward_s"}, {"communication (not hidden)", "comm_s"},
                {"optimizer", "optimizer_s"}, {"other (data, waiting)", "other_s"}};
        for (String[] p : parts) {
            List<Double> v = new ArrayList<>();
            for (String cat : cats) v.add(value(s, route, Integer.parseInt(cat), p[1]));
            c.addSeries(p[0], cats, v);
        }
        return c;
    }

    /**
     * Time inside the collectives per epoch, by phase: the device-to-host copy, the reduction itself, the copy
     * back (the MPI route on GPUs has all three; NCCL and CPU ranks only the reduction).
     */
    public static CategoryChart collectives(SpeedupResults r) {
        CategoryChart c = new CategoryChartBuilder().width(W).height(H).title("Inside the all-reduce, per epoch")
                .xAxisTitle("run").yAxisTitle("seconds per epoch").build();
        style(c);
        c.getStyler().setStacked(true);
        Table s = r.summary();
        List<String> cats = new ArrayList<>();
        List<Double> d2h = new ArrayList<>(), red = new ArrayList<>(), h2d = new ArrayList<>();
        for (Row row : s) {
            if (row.getString("route").equals(SpeedupResults.SINGLE) || row.getInt("ranks") == 1
                    || !r.hasPhases(row.getString("route"))) continue;
            cats.add(row.getString("route") + " x" + row.getInt("ranks"));
            d2h.add(row.getDouble("d2h_s"));
            red.add(row.getDouble("collective_s"));
            h2d.add(row.getDouble("h2d_s"));
        }
        if (cats.isEmpty()) {
            cats.add("(one rank only)");
            d2h.add(0.0);
            red.add(0.0);
            h2d.add(0.0);
        }
        c.addSeries("device to host", cats, d2h);
        c.addSeries("reduce", cats, red);
        c.addSeries("host to device", cats, h2d);
        return c;
    }

    /** Test accuracy after each epoch, one line per run (its first round: later rounds train the same again). */
    public static XYChart accuracy(SpeedupResults r) {
        XYChart c = new XYChartBuilder().width(W).height(H).title("Test accuracy per epoch")
                .xAxisTitle("epoch").yAxisTitle("test accuracy (%)").build();
        style(c);
        for (String[] key : r.runs()) {
            Table t = SpeedupResults.firstRound(r.run(key[0], Integer.parseInt(key[1])));
            List<Double> x = new ArrayList<>(), y = new ArrayList<>();
            for (Row row : t) {
                x.add((double) row.getInt("epoch"));
                y.add(100 * row.getDouble("test_acc"));
            }
            String name = key[0].equals(SpeedupResults.SINGLE) ? "1 rank" : key[0] + " x" + key[1];
            if (x.isEmpty() || y.stream().allMatch(v -> Double.isNaN(v))) continue;
            c.addSeries(name, x, y).setMarker(SeriesMarkers.CIRCLE);
        }
        return c;
    }

    private static double value(Table s, String route, int ranks, String col) {
        for (Row row : s) {
            String rr = row.getString("route");
            if (row.getInt("ranks") == ranks && (rr.equals(route) || (ranks == 1 && rr.equals(SpeedupResults.SINGLE)))) {
                return row.getDouble(col);
            }
        }
        return 0;
    }

    private static void style(XYChart c) {
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartBackgroundColor(Color.WHITE);
        c.getStyler().setPlotGridLinesVisible(true);
        c.getStyler().setXAxisDecimalPattern("0");
    }

    private static void style(CategoryChart c) {
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setYAxisDecimalPattern("0.00");
        c.getStyler().setChartBackgroundColor(Color.WHITE);
    }
}
