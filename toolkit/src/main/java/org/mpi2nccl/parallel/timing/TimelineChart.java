package org.mpi2nccl.parallel.timing;

import java.awt.BasicStroke;
import java.awt.Color;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.mpi2nccl.parallel.timing.TimelineEvent.Kind;

/**
 * A {@link TimelineTrace} drawn with XChart: one row per rank (rank 0 on top), time in milliseconds on x. Each row has
 * two lanes, as the trace has two threads: the upper one for the step's phases (forward, backward, the wait for the
 * gradients, the optimizer), the lower one for the all-reduces. A bar is an event, colored by kind; a bucket becoming
 * ready is a tick on the upper lane. The legend sits below the plot, so it never covers a bar.
 */
final class TimelineChart {
    private static final float BAR = 16f;
    private static final double LANE = 0.2;

    private TimelineChart() {}

    static Color color(Kind k) {
        return switch (k) {
            case FORWARD -> new Color(0x4C72B0);
            case BACKWARD -> new Color(0x55A868);
            case BUCKET_READY -> Color.BLACK;
            case ALL_REDUCE -> new Color(0xDD8452);
            case WAIT -> new Color(0xC44E52);
            case OPTIMIZER -> new Color(0x8172B2);
        };
    }

    /** {@code endMs}: where the time axis ends (NaN: where the events end). */
    static XYChart of(TimelineTrace trace, String title, double endMs) {
        int n = trace.ranks();
        XYChart c = new XYChartBuilder().width(820).height(140 + 90 * n).title(title)
                .xAxisTitle("ms since the ranks met").yAxisTitle("").build();
        XYStyler s = c.getStyler();
        s.setLegendPosition(Styler.LegendPosition.OutsideS);
        s.setLegendLayout(Styler.LegendLayout.Horizontal);
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotGridHorizontalLinesVisible(false);
        s.setYAxisMin(-0.6).setYAxisMax(n - 0.4);
        if (!Double.isNaN(endMs)) s.setXAxisMin(0.0).setXAxisMax(endMs);
        // "rank r" at each row's middle; XChart hides every tick label when two are equal, so the others are blanks
        // of different lengths.
        s.setyAxisTickLabelsFormattingFunction(y -> {
            long r = Math.round(y);
            return Math.abs(y - r) < 1e-6 && r >= 0 && r < n ? "rank " + (n - 1 - r) : " ".repeat(Math.max(1, (int) Math.round((y + 2) * 4)));
        });
        BasicStroke bar = new BasicStroke(BAR, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER);
        Map<Kind, double[]> inLegend = new EnumMap<>(Kind.class);    // a point of each kind drawn
        int id = 0;
        for (int r = 0; r < n; r++) {
            double row = n - 1 - r;
            List<TimelineEvent> events = trace.events(r);
            for (TimelineEvent e : events) {
                if (e.kind() == Kind.BUCKET_READY) continue;
                double y = TimelineTrace.tid(e) == TimelineTrace.STEP_TID ? row + LANE : row - LANE;
                double x0 = e.startNanos() / 1e6, x1 = Math.max(e.endNanos(), e.startNanos() + 1) / 1e6;
                XYSeries b = c.addSeries(e.kind().label() + "#" + id++, new double[] {x0, x1}, new double[] {y, y});
                b.setMarker(SeriesMarkers.NONE);
                b.setLineColor(color(e.kind()));
                b.setLineStyle(bar);
                b.setShowInLegend(false);
                inLegend.putIfAbsent(e.kind(), new double[] {x0, y});
            }
            double[] readyX = events.stream().filter(e -> e.kind() == Kind.BUCKET_READY)
                    .mapToDouble(e -> e.startNanos() / 1e6).toArray();
            if (readyX.length > 0) {
                double[] readyY = new double[readyX.length];
                Arrays.fill(readyY, row + LANE + 0.12);
                XYSeries t = c.addSeries(Kind.BUCKET_READY.label() + "#" + id++, readyX, readyY);
                t.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
                t.setMarker(SeriesMarkers.TRIANGLE_DOWN);
                t.setMarkerColor(color(Kind.BUCKET_READY));
                t.setShowInLegend(false);
                inLegend.putIfAbsent(Kind.BUCKET_READY, new double[] {readyX[0], readyY[0]});
            }
        }
        // One legend entry per kind that occurs: a one-point series on a point already drawn in its color.
        for (Map.Entry<Kind, double[]> en : inLegend.entrySet()) {
            Kind k = en.getKey();
            XYSeries l = c.addSeries(k.label(), new double[] {en.getValue()[0]}, new double[] {en.getValue()[1]});
            l.setLineColor(color(k));
            l.setMarkerColor(color(k));
            if (k == Kind.BUCKET_READY) {
                l.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
                l.setMarker(SeriesMarkers.TRIANGLE_DOWN);
            } else {
                l.setMarker(SeriesMarkers.NONE);
                l.setLineStyle(new BasicStroke(8f));
            }
        }
        return c;
    }
}
