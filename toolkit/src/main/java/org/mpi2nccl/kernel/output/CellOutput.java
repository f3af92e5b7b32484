package org.mpi2nccl.kernel.output;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * What one cell prints, on its way to the notebook. Jupyter's streams send a message per flush, and a
 * {@code println} flushes: a cell printing a million lines (or each rank of a {@code %%mpj} cell doing so) sent a
 * million messages, the browser got a fraction and never the cell's end, and the kernel's queue grew to gigabytes.
 * Here the cell's {@code System.out} and {@code System.err} fill a buffer that goes out at most every
 * {@value #PERIOD_MS} ms, and only the first {@value #SHOWN_BYTES} bytes of the cell are shown: the rest goes to
 * a file in the kernel's {@link CellOutputFolder}, which a note at the end of the cell names. A display (a chart,
 * a table, a progress bar) first sends the text before it, so the two keep their order.
 */
public final class CellOutput implements AutoCloseable {
    static final int PERIOD_MS = 50;
    public static final int SHOWN_BYTES = 1 << 20;
    /** Beyond this, even the file stops growing: a cell printing without end must not fill the disk. */
    public static final long FILE_BYTES = 64L << 20;

    private static final ScheduledExecutorService TICK = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cell-output");
        t.setDaemon(true);
        return t;
    });

    /** The running cell's output (cells run one at a time). */
    private static volatile CellOutput current;

    private final PrintStream out;
    private final PrintStream err;
    private final Part outPart;
    private final Part errPart;
    private final ScheduledFuture<?> ticking;
    private final int shownLimit;
    private long shown;
    private long spilled;
    private long dropped;
    private Path file;
    private OutputStream fileOut;
    private String fileProblem;

    /** Starts sending the cell's output to {@code out} and {@code err} (Jupyter's streams), {@code shownLimit} bytes at most. */
    public CellOutput(PrintStream out, PrintStream err, int shownLimit) {
        this.out = out;
        this.err = err;
        this.shownLimit = shownLimit;
        this.outPart = new Part(out, "stdout");
        this.errPart = new Part(err, "stderr");
        this.ticking = TICK.scheduleAtFixedRate(this::send, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
        current = this;
    }

    /** Sends the running cell's buffered text now: called before a display goes out. */
    public static void sendPending() {
        CellOutput c = current;
        if (c != null) c.send();
    }

    /**
     * Prints {@code line} on the running cell's stderr past the cap (after the text before it): a note about the
     * output itself, such as where a rank's cut output went, must be seen even when the cell's output was cut.
     * With no cell running it goes to {@code fallback}.
     */
    public static void note(String line, PrintStream fallback) {
        CellOutput c = current;
        if (c == null) {
            fallback.println(line);
            fallback.flush();
            return;
        }
        synchronized (c) {
            c.send();
            c.err.println(line);
            c.err.flush();
        }
    }

    /** The stream the cell's {@code System.out} becomes. */
    public PrintStream out() {
        return outPart.stream;
    }

    /** The stream the cell's {@code System.err} becomes. */
    public PrintStream err() {
        return errPart.stream;
    }

    /** Sends what is buffered (the ticker's job). */
    synchronized void send() {
        outPart.send();
        errPart.send();
    }

    /** Sends the rest and, when output was cut, the note that says where the rest went. */
    @Override
    public void close() {
        ticking.cancel(false);
        if (current == this) current = null;
        synchronized (this) {
            send();
            if (fileOut != null) {
                try {
                    fileOut.close();
                } catch (IOException | RuntimeException e) {
                    // the note below still says how much there was
                }
            }
            if (spilled > 0 || dropped > 0) {
                err.printf(Locale.ROOT, "[output cut at %d KB: %s]%n", shownLimit / 1024, whereTheRestWent());
                err.flush();
            }
        }
    }

    private String whereTheRestWent() {
        if (spilled == 0) return "the other " + dropped + " bytes were not kept (" + fileProblem + ")";
        return spilled + " more bytes are in " + file + (dropped == 0 ? ""
                : ", the last " + dropped + " bytes were not kept (the file stops at " + (FILE_BYTES >> 20) + " MB)");
    }

    private synchronized void write(Part part, byte[] b, int off, int len) {
        int show = (int) Math.max(0, Math.min(len, shownLimit - shown));
        part.buffer.write(b, off, show);
        shown += show;
        if (show < len) spill(b, off + show, len - show);
    }

    private void spill(byte[] b, int off, int len) {
        if (fileOut == null && fileProblem == null) {
            try {
                file = CellOutputFolder.newFile("cell-");
                // a FileOutputStream, not a FileChannel: interrupting the cell (how it is stopped) would close a channel
                fileOut = new BufferedOutputStream(new FileOutputStream(file.toFile()), 1 << 16);
            } catch (IOException e) {
                fileProblem = "no file for them: " + e;
            }
        }
        int keep = fileOut == null ? 0 : (int) Math.max(0, Math.min(len, FILE_BYTES - spilled));
        try {
            if (keep > 0) fileOut.write(b, off, keep);
        } catch (IOException | RuntimeException e) {
            keep = 0; // a full disk, say, or a Thread.stop that landed inside the stream: drop it, the cell goes on
        }
        spilled += keep;
        dropped += len - keep;
    }

    /** One of the two streams: its buffer and the stream the cell writes to. */
    private final class Part {
        final java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        final PrintStream target;
        final PrintStream stream;

        Part(PrintStream target, String name) {
            this.target = target;
            this.stream = new PrintStream(new OutputStream() {
                @Override
                public void write(int b) {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    CellOutput.this.write(Part.this, b, off, len);
                }
            }, false, StandardCharsets.UTF_8);
        }

        void send() {
            if (buffer.size() == 0) return;
            target.print(buffer.toString(StandardCharsets.UTF_8));
            target.flush();
            buffer.reset();
        }
    }
}
