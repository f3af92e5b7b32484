package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * What each stage of lesson 03 costs per training step, on this rank: the checks record a row when a stage is
 * right ({@link #record}); the lesson shows them as a table and a chart and says in words, from the numbers, what
 * buckets and overlap bought on this machine ({@link #verdict}).
 */
public final class Lesson03Times {
    public static final String ONE_RANK = "one rank, whole batch";
    public static final String SHARES = "1. shares";
    public static final String PER_TENSOR = "2. per tensor";
    public static final String BUCKETS = "3. buckets";
    public static final String OVERLAP = "4. overlap";
    public static final String LIBRARY = "DataParallel";

    private record Row(int examples, Lesson03Meter.Summary s, boolean communicates) {}

    private final Map<String, Row> rows = new LinkedHashMap<>();

    /** The row of {@code stage} (replaced when the check runs again). */
    public synchronized void record(String stage, int examplesPerRank, Lesson03Meter.Summary s, boolean communicates) {
        rows.put(stage, new Row(examplesPerRank, s, communicates));
    }

    public synchronized boolean has(String stage) {
        return rows.containsKey(stage);
    }

    /**
     * One row per stage, times in milliseconds per step (medians, 3 significant digits): forward+backward, the
     * all-reduce calls and their time, the part of it during backward, the wait after backward, the whole step.
     */
    public synchronized Table table() {
        StringColumn stage = StringColumn.create("stage");
        // Short headers with units: the table must fit the notebook's column.
        DoubleColumn examples = DoubleColumn.create("examples/rank"), calls = DoubleColumn.create("calls"),
                compute = DoubleColumn.create("fwd+bwd (ms)"), busy = DoubleColumn.create("all-reduce (ms)"),
                hidden = DoubleColumn.create("in bwd (ms)"), wait = DoubleColumn.create("wait (ms)"),
                step = DoubleColumn.create("step (ms)");
        for (Map.Entry<String, Row> e : ordered().entrySet()) {
            Row r = e.getValue();
            stage.append(e.getKey());
            examples.append(r.examples);
            compute.append(round(r.s.compute()));
            step.append(round(r.s.step()));
            calls.append(r.communicates ? r.s.calls() : Double.NaN);
            busy.append(r.communicates ? round(r.s.allReduce()) : Double.NaN);
            hidden.append(r.communicates ? round(r.s.hidden()) : Double.NaN);
            wait.append(r.communicates ? round(r.s.waited()) : Double.NaN);
        }
        return Table.create("per training step, rank's medians", stage, examples, calls, compute, busy, hidden, wait, step);
    }

    /** Each stage's step split into forward+backward, waiting for the gradients after backward, and the rest. */
    public synchronized CategoryChart chart() {
        CategoryChart c = new CategoryChartBuilder().width(760).height(380).title("Where a training step's time goes")
                .xAxisTitle("stage").yAxisTitle("ms per step (median)").build();
        List<String> names = new ArrayList<>();
        List<Double> compute = new ArrayList<>(), wait = new ArrayList<>(), rest = new ArrayList<>();
        for (Map.Entry<String, Row> e : ordered().entrySet()) {
            Lesson03Meter.Summary s = e.getValue().s;
            double w = e.getValue().communicates ? s.waited() : 0;
            names.add(e.getKey());
            compute.add(s.compute());
            wait.add(w);
            rest.add(Math.max(0, s.step() - s.compute() - w));
        }
        if (names.isEmpty()) {
            names.add("nothing measured yet");
            compute.add(0.0);
            wait.add(0.0);
            rest.add(0.0);
        }
        c.addSeries("forward+backward", names, compute);
        c.addSeries("waiting for the all-reduce after backward", names, wait);
        c.addSeries("optimizer and the rest", names, rest);
        c.getStyler().setStacked(true);
        // Six stage names side by side overlap at this width: tilted, they fit.
        c.getStyler().setXAxisLabelRotation(25);
        c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Horizontal);
        return c;
    }

    /** What buckets and overlap bought here, in sentences computed from the rows. */
    public synchronized String verdict() {
        List<String> out = new ArrayList<>();
        Row one = rows.get(ONE_RANK), shares = rows.get(SHARES), tensor = rows.get(PER_TENSOR), bucket = rows.get(BUCKETS),
                overlap = rows.get(OVERLAP), lib = rows.get(LIBRARY);
        if (one != null && shares != null) {
            out.add(String.format(Locale.ROOT, "Splitting the batch: forward+backward on %d examples took %.2f ms, on %d examples"
                    + " %.2f ms (%s).", one.examples, one.s.compute(), shares.examples, shares.s.compute(),
                    ratio(one.s.compute(), shares.s.compute(), "faster", "slower")));
        }
        if (tensor != null && bucket != null) {
            out.add(String.format(Locale.ROOT, "Buckets: %.0f all-reduce calls per step instead of %.0f; the all-reduce time went"
                    + " from %.2f ms to %.2f ms per step (%s).", bucket.s.calls(), tensor.s.calls(), tensor.s.allReduce(),
                    bucket.s.allReduce(), ratio(tensor.s.allReduce(), bucket.s.allReduce(), "less", "more")));
            out.add(bucket.s.allReduce() < 0.9 * tensor.s.allReduce()
                    ? "So the fixed cost of each call was a large part of the all-reduce time, and fewer calls saved it."
                    : "So here the time goes into moving the bytes (or waiting for the slower rank), not into the number of calls.");
        }
        if (bucket != null && overlap != null) {
            double a = bucket.s.step(), b = overlap.s.step();
            // a claim only when the middle halves of the two stages' steps do not overlap: else the noise decides
            String effect = overlap.s.stepHigh() < bucket.s.stepLow() ? "overlap helped here"
                    : overlap.s.stepLow() > bucket.s.stepHigh() ? "overlap did not help here, it cost time"
                    : String.format(Locale.ROOT, "this machine could not tell them apart: the middle half of the steps"
                    + " took %.2f-%.2f ms with overlap and %.2f-%.2f ms without, ranges that overlap (other work on the"
                    + " cores moves a step more than overlap does)", overlap.s.stepLow(), overlap.s.stepHigh(),
                    bucket.s.stepLow(), bucket.s.stepHigh());
            out.add(String.format(Locale.ROOT, "Overlap: a step took %.2f ms with it and %.2f ms without (stage 3), so %s;"
                    + " %.2f of its %.2f ms of all-reduce ran while backward was still computing, and it waited %.2f ms after"
                    + " backward instead of %.2f ms.", b, a, effect, overlap.s.hidden(), overlap.s.allReduce(), overlap.s.waited(),
                    bucket.s.waited()));
            if (!(overlap.s.stepHigh() < bucket.s.stepLow())) {
                out.add(String.format(Locale.ROOT, "Overlap pays when backward is long next to the all-reduce and a core"
                        + " is free for the all-reduce thread; here backward took %.2f ms, the all-reduce %.2f ms, and this"
                        + " machine has %d cores for all the ranks and their all-reduce threads.", overlap.s.compute(),
                        overlap.s.allReduce(), Runtime.getRuntime().availableProcessors()));
            }
        }
        if (lib != null && overlap != null) {
            out.add(String.format(Locale.ROOT, "The toolkit's DataParallel took %.2f ms per step with %.0f all-reduce calls;"
                    + " your stage 4 took %.2f ms with %.0f.", lib.s.step(), lib.s.calls(), overlap.s.step(), overlap.s.calls()));
        }
        if (out.isEmpty() && lib != null) {
            return String.format(Locale.ROOT, "The toolkit's DataParallel took %.2f ms per step with %.0f all-reduce calls."
                    + " No stage of yours is measured yet: the table fills in as the stages' checks pass.", lib.s.step(), lib.s.calls());
        }
        if (out.isEmpty()) return "No stage measured yet: the table fills in as the stages' checks pass.";
        return String.join("\n", out);
    }

    private static String ratio(double before, double after, String better, String worse) {
        if (!(after > 0) || !(before > 0)) return "no comparison";
        return after <= before ? String.format(Locale.ROOT, "%.1fx %s", before / after, better)
                : String.format(Locale.ROOT, "%.1fx %s", after / before, worse);
    }

    private Map<String, Row> ordered() {
        Map<String, Row> m = new LinkedHashMap<>();
        for (String s : List.of(ONE_RANK, SHARES, PER_TENSOR, BUCKETS, OVERLAP, LIBRARY)) if (rows.containsKey(s)) m.put(s, rows.get(s));
        return m;
    }

    /** 3 significant digits. */
    private static double round(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x) || x == 0) return x;
        return new java.math.BigDecimal(x).round(new java.math.MathContext(3)).doubleValue();
    }
}
