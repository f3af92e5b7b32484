package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Lesson 03's benchmark for the write-up: the toolkit's data-parallel step timed by {@link Lesson03Meter} at several
 * bucket sizes, one row a size. The student reads the table and writes what changed and why; the sentences here
 * only say what the numbers show, and how far the step-to-step spread lets them say it.
 */
public final class Lesson03Sweep {
    private final TreeMap<Long, Lesson03Meter.Summary> rows = new TreeMap<>();

    /** The medians of the steps trained with buckets of {@code bucketBytes} (replaced when that size runs again). */
    public synchronized void record(long bucketBytes, Lesson03Meter.Summary s) {
        rows.put(bucketBytes, s);
    }

    /** One row a bucket size, smallest first: calls, all-reduce time and its part under backward, the step and its spread. */
    public synchronized Table table() {
        DoubleColumn kib = DoubleColumn.create("bucket (KiB)"), calls = DoubleColumn.create("calls"),
                busy = DoubleColumn.create("all-reduce (ms)"), hidden = DoubleColumn.create("in bwd (ms)"),
                wait = DoubleColumn.create("wait (ms)"), step = DoubleColumn.create("step (ms)");
        StringColumn spread = StringColumn.create("middle half (ms)");
        rows.forEach((bytes, s) -> {
            kib.append(bytes / 1024.0);
            calls.append(s.calls());
            busy.append(round(s.allReduce()));
            hidden.append(round(s.hidden()));
            wait.append(round(s.waited()));
            step.append(round(s.step()));
            spread.append(String.format(Locale.ROOT, "%.3g-%.3g", s.stepLow(), s.stepHigh()));
        });
        return Table.create("per training step by bucket size, rank's medians", kib, calls, busy, hidden, wait, step, spread);
    }

    /** What the sweep shows, in sentences computed from its rows; none are claimed that its spread cannot carry. */
    public synchronized String verdict() {
        if (rows.size() < 2) return "Fewer than two bucket sizes measured: nothing to compare yet.";
        List<String> out = new ArrayList<>();
        Map.Entry<Long, Lesson03Meter.Summary> small = rows.firstEntry(), large = rows.lastEntry();
        out.add(String.format(Locale.ROOT, "From %s to %s buckets, per step: all-reduce calls %.0f instead of %.0f,"
                + " %.2f ms in all-reduce instead of %.2f ms, %.2f ms of it during backward instead of %.2f ms.",
                size(small.getKey()), size(large.getKey()), large.getValue().calls(), small.getValue().calls(),
                large.getValue().allReduce(), small.getValue().allReduce(), large.getValue().hidden(), small.getValue().hidden()));
        Map.Entry<Long, Lesson03Meter.Summary> fast = null, slow = null;
        for (Map.Entry<Long, Lesson03Meter.Summary> e : rows.entrySet()) {
            if (fast == null || e.getValue().step() < fast.getValue().step()) fast = e;
            if (slow == null || e.getValue().step() > slow.getValue().step()) slow = e;
        }
        Lesson03Meter.Summary f = fast.getValue(), s = slow.getValue();
        String apart = f.stepHigh() < s.stepLow()
                ? "the middle halves of their steps do not overlap, so the difference is larger than this machine's"
                + " step-to-step noise"
                : String.format(Locale.ROOT, "but the middle halves of their steps overlap (%.2f-%.2f ms and %.2f-%.2f ms):"
                + " on this machine the noise is as large as the difference, so these steps cannot rank the sizes",
                f.stepLow(), f.stepHigh(), s.stepLow(), s.stepHigh());
        out.add(String.format(Locale.ROOT, "The fastest median step was with %s buckets (%.2f ms), the slowest with %s"
                + " (%.2f ms); %s.", size(fast.getKey()), f.step(), size(slow.getKey()), s.step(), apart));
        return String.join("\n", out);
    }

    private static String size(long bytes) {
        return bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0 ? bytes / (1024 * 1024) + " MiB"
                : String.format(Locale.ROOT, "%.0f KiB", bytes / 1024.0);
    }

    /** 3 significant digits. */
    private static double round(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x) || x == 0) return x;
        return new java.math.BigDecimal(x).round(new java.math.MathContext(3)).doubleValue();
    }
}
