package org.mpi2nccl.launch.rank;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Replaces System.out and System.err in a rank JVM so that each line carries the rank that wrote it.
 *
 * <p>In multicore all ranks are threads of one JVM and share System.out, so the rank is per thread: an
 * inheritable thread-local set by the boot before it calls the rank's main (threads a rank starts inherit it).
 * Each thread collects its own partial line, and a whole line is written at once, so lines of different ranks
 * never mix. In niodev there is one rank per JVM and {@link #processRank} holds it.
 */
public final class TaggedOutput extends OutputStream {
    private static final InheritableThreadLocal<Integer> RANK = new InheritableThreadLocal<>();
    private static volatile int processRank = -1;
    private static PrintStream rawOut;
    private static TaggedOutput out;
    private static TaggedOutput err;

    private final PrintStream target;
    private final Wire.Kind kind;
    private final ThreadLocal<ByteArrayOutputStream> pending = ThreadLocal.withInitial(ByteArrayOutputStream::new);

    private TaggedOutput(PrintStream target, Wire.Kind kind) {
        this.target = target;
        this.kind = kind;
    }

    /** Installs tagged System.out/System.err (once per JVM); {@code rank} is the JVM's rank, -1 for multicore. */
    public static synchronized void install(int rank) {
        processRank = rank;
        if (rawOut != null) return;
        rawOut = System.out;
        // Both streams go to the JVM's stdout: the tag says which one a line belongs to, and one pipe keeps
        // a rank's stdout and stderr lines in the order they were printed.
        out = new TaggedOutput(rawOut, Wire.Kind.OUT);
        err = new TaggedOutput(rawOut, Wire.Kind.ERR);
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /** Marks the calling thread (and threads it starts from now on) as rank {@code rank}. */
    public static void setThreadRank(int rank) {
        RANK.set(rank);
    }

    public static int currentRank() {
        Integer r = RANK.get();
        return r != null ? r : processRank;
    }

    /** Writes a control record (done, fail) for the calling thread's rank, bypassing the program's streams. */
    public static void control(Wire.Kind kind, String text) {
        endPartialLines();
        PrintStream out = rawOut != null ? rawOut : System.out;
        synchronized (out) {
            out.println(Wire.encode(currentRank(), kind, text));
            out.flush();
        }
    }

    @Override
    public void write(int b) {
        if (b == '\n') {
            emit();
        } else {
            pending.get().write(b);
        }
    }

    @Override
    public void write(byte[] b, int off, int len) {
        int start = off;
        for (int i = off; i < off + len; i++) {
            if (b[i] == '\n') {
                pending.get().write(b, start, i - start);
                emit();
                start = i + 1;
            }
        }
        pending.get().write(b, start, off + len - start);
    }

    /** A partial line stays pending until its newline, so that it is never split by another rank's line. */
    @Override
    public void flush() {
        target.flush();
    }

    /** Sends whatever the calling thread printed without a final newline (called when a rank ends). */
    public static void endPartialLines() {
        System.out.flush();
        System.err.flush();
        if (out != null) out.endPartialLine();
        if (err != null) err.endPartialLine();
    }

    private void endPartialLine() {
        if (pending.get().size() > 0) emit();
    }

    private void emit() {
        ByteArrayOutputStream buf = pending.get();
        String text = buf.toString(StandardCharsets.UTF_8);
        buf.reset();
        if (text.endsWith("\r")) text = text.substring(0, text.length() - 1);
        String line = Wire.encode(currentRank(), kind, text);
        synchronized (target) {
            target.println(line);
            target.flush();
        }
    }
}
