package org.mpi2nccl.kernel.output;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import org.mpi2nccl.html.Html;

import java.time.Duration;
import java.util.Locale;

/**
 * A progress bar that updates in place in the cell's output, for long work such as training epochs:
 *
 * <pre>{@code
 * try (Progress bar = Progress.start("epoch", 10)) {
 *     for (int e = 0; e < 10; e++) { train(); bar.step("loss %.3f", loss); }
 * }
 * }</pre>
 *
 * The bar is one Jupyter output with a display id; each step replaces it (update_display_data), at most
 * {@link #MAX_UPDATES_PER_SECOND} times a second so a fast loop does not flood the front end; the last state is
 * always shown.
 */
public final class Progress implements AutoCloseable {
    public static final int MAX_UPDATES_PER_SECOND = 10;

    private final String label;
    private final long total;
    private final long startNanos = System.nanoTime();
    private final String displayId;
    private long done;
    private String note = "";
    private long lastShownNanos;
    private boolean closed;

    private Progress(String label, long total) {
        if (total < 1) {
            throw new IllegalArgumentException("a progress bar needs at least one step, not " + total);
        }
        this.label = label;
        this.total = total;
        this.displayId = Display.display(snapshot());
        this.lastShownNanos = System.nanoTime();
    }

    /** Shows a new bar at 0 of {@code total}. */
    public static Progress start(String label, long total) {
        return new Progress(label, total);
    }

    /** One more step done. */
    public synchronized Progress step() {
        return set(done + 1);
    }

    /** One more step done, with a note shown beside the bar (a format string, e.g. {@code "loss %.3f"}). */
    public synchronized Progress step(String noteFormat, Object... args) {
        this.note = String.format(Locale.ROOT, noteFormat, args);
        return set(done + 1);
    }

    /** {@code done} steps of {@code total} are done. */
    public synchronized Progress set(long done) {
        this.done = Math.max(0, Math.min(done, total));
        long now = System.nanoTime();
        if (this.done == total || now - lastShownNanos >= 1_000_000_000L / MAX_UPDATES_PER_SECOND) {
            show();
        }
        return this;
    }

    public synchronized long done() {
        return done;
    }

    public long total() {
        return total;
    }

    public String displayId() {
        return displayId;
    }

    /** Shows the final state (also when the work stopped early, so the bar shows where it stopped). */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            show();
        }
    }

    /**
     * Ends the bar and takes it off the page: for work made of many runs (an experiment's), where finished bars would
     * pile up under the cell and only the running one says anything.
     */
    public synchronized void clear() {
        closed = true;
        Display.update(displayId, new DisplayData(""));
    }

    private void show() {
        lastShownNanos = System.nanoTime();
        Display.update(displayId, snapshot());
    }

    /** The bar as an output bundle: an HTML {@code <progress>} element and a text bar. */
    synchronized DisplayData snapshot() {
        Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
        String eta = done == 0 || done == total ? ""
                : String.format(Locale.ROOT, ", ~%s left", seconds(elapsed.multipliedBy(total - done).dividedBy(done)));
        String status = String.format(Locale.ROOT, "%s %d/%d (%d%%), %s%s%s", label, done, total,
                100 * done / total, seconds(elapsed), eta, note.isEmpty() ? "" : "; " + note);
        int width = 30;
        int filled = (int) (width * done / total);
        DisplayData data = new DisplayData("[" + "#".repeat(filled) + "-".repeat(width - filled) + "] " + status);
        data.putHTML("<div class=\"mpi2nccl-progress\"><progress style=\"width:20em\" max=\"" + total + "\" value=\""
                + done + "\"></progress> <span>" + Html.escape(status) + "</span></div>");
        return data;
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
