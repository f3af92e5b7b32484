package org.mpi2nccl.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A text progress bar. On a terminal it redraws one line in place ({@code \r}) at most ten times a second; when
 * the output is a file or a CI log it prints a line at each quarter instead, so logs stay short.
 */
public final class TerminalProgress implements ProgressReporter {
    private static final int WIDTH = 30;
    private final PrintStream out;
    private final boolean interactive;

    public TerminalProgress(PrintStream out, boolean interactive) {
        this.out = out;
        this.interactive = interactive;
    }

    /** On {@code System.out}; redraws in place when a console is attached. */
    public static TerminalProgress onStdout() {
        return new TerminalProgress(System.out, System.console() != null);
    }

    @Override
    public Bar start(String label, long total) {
        if (total < 1) throw new IllegalArgumentException("a progress bar needs at least one step, not " + total);
        return new Bar() {
            private final long started = System.nanoTime();
            private long lastDrawn;
            private int lastQuarter = -1;
            private long done;
            private String note = "";
            private boolean closed;

            @Override
            public synchronized void update(long d, String n) {
                done = Math.max(0, Math.min(d, total));
                note = n == null ? "" : n;
                if (interactive) {
                    long now = System.nanoTime();
                    if (now - lastDrawn > 100_000_000L || done == total) {
                        lastDrawn = now;
                        out.print("\r" + line());
                        out.flush();
                    }
                } else {
                    int quarter = (int) (4 * done / total);
                    if (quarter != lastQuarter && quarter < 4) {
                        lastQuarter = quarter;
                        out.println(line());
                    }
                }
            }

            @Override
            public synchronized void close() {
                if (closed) return;
                closed = true;
                out.print((interactive ? "\r" : "") + line() + System.lineSeparator());
                out.flush();
            }

            private String line() {
                int filled = (int) (WIDTH * done / total);
                double s = (System.nanoTime() - started) / 1e9;
                return String.format(Locale.ROOT, "%-28s [%s%s] %3d%% %6.1f s%s", label, "#".repeat(filled),
                        "-".repeat(WIDTH - filled), 100 * done / total, s, note.isEmpty() ? "" : "  " + note);
            }
        };
    }
}
