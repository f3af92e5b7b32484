package org.mpi2nccl.comm.ring;

import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.knowm.xchart.style.Styler;

/**
 * A ring collective's step picture ({@link RingTrace#sendGrid}) as a grid of squares: x = step, y = rank, one colour
 * per segment and a legend entry per segment, so that a segment can be followed round the ring by its colour. A
 * segment number is a name, not an amount: colours from a qualitative, colour-blind-safe palette (Okabe and Ito's,
 * the lessons' figures use it too), never a continuous scale that would suggest segment 3 is "more" than 1.
 */
final class RingStepChart {
    private static final Color[] PALETTE = {new Color(0x0072B2), new Color(0xE69F00), new Color(0x009E73),
            new Color(0xCC79A7), new Color(0x56B4E9), new Color(0xD55E00), new Color(0xF0E442), new Color(0x000000)};

    private RingStepChart() {
    }

    static XYChart of(int[][] grid, int ranks) {
        int steps = grid.length == 0 ? 0 : grid[0].length;
        XYChart chart = new XYChartBuilder().width(170 + 70 * Math.max(steps, 2)).height(150 + 60 * ranks)
                .title("segment sent by each rank at each step").xAxisTitle("step").yAxisTitle("rank").build();
        var s = chart.getStyler();
        s.setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setChartBackgroundColor(Color.WHITE);
        s.setMarkerSize(34);
        s.setXAxisMin(-0.6).setXAxisMax(steps - 0.4).setYAxisMin(-0.6).setYAxisMax(ranks - 0.4);
        s.setxAxisTickLabelsFormattingFunction(x -> integer(x) ? String.valueOf(Math.round(x)) : " ");
        s.setyAxisTickLabelsFormattingFunction(y -> integer(y) ? String.valueOf(Math.round(y)) : " ");
        int segments = 0;
        for (int[] row : grid) for (int v : row) segments = Math.max(segments, v + 1);
        for (int seg = -1; seg < segments; seg++) {
            List<Double> xs = new ArrayList<>(), ys = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                for (int st = 0; st < steps; st++) {
                    if (grid[r][st] == seg) {
                        xs.add((double) st);
                        ys.add((double) r);
                    }
                }
            }
            if (xs.isEmpty()) continue;
            XYSeries series = chart.addSeries(seg < 0 ? "nothing sent" : "segment " + seg, xs, ys);
            series.setMarker(SeriesMarkers.SQUARE);
            series.setMarkerColor(seg < 0 ? new Color(0xDDDDDD) : PALETTE[seg % PALETTE.length]);
        }
        return chart;
    }

    /** Ticks only at whole steps and ranks (XChart hides all tick labels when two are equal: the others are blanks). */
    private static boolean integer(double v) {
        return Math.abs(v - Math.round(v)) < 1e-6;
    }
}
