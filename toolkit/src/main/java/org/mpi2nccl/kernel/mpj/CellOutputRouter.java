package org.mpi2nccl.kernel.mpj;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;

/**
 * Sends what a rank's cells print to the kernel, tagged with the stream (stdout, stderr).
 *
 * <p>System.out is one per JVM, and in MPJ's multicore mode all ranks share the JVM: each rank engine puts its
 * own router in front of whatever System.out was before (another rank's router, or the launcher's). A router
 * takes the bytes written by threads of its rank's thread group while a cell runs and passes everything else
 * on, so a chain of routers sends every rank's output to its own kernel link.
 */
final class CellOutputRouter extends OutputStream {
    private final ThreadGroup rankGroup;
    private final PrintStream previous;
    private final String streamName;
    private volatile BiConsumer<String, String> sink;

    private CellOutputRouter(ThreadGroup rankGroup, PrintStream previous, String streamName) {
        this.rankGroup = rankGroup;
        this.previous = previous;
        this.streamName = streamName;
    }

    /** Installs routers for System.out and System.err; returns them (out, err). */
    static CellOutputRouter[] install(ThreadGroup rankGroup) {
        synchronized (System.class) { // System.class is the same object for every rank's class loader
            CellOutputRouter out = new CellOutputRouter(rankGroup, System.out, "stdout");
            CellOutputRouter err = new CellOutputRouter(rankGroup, System.err, "stderr");
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            return new CellOutputRouter[] {out, err};
        }
    }

    /** From now on, output of this rank's threads goes to {@code sink(streamName, text)}; null: pass it on. */
    void capture(BiConsumer<String, String> newSink) {
        this.sink = newSink;
    }

    private boolean mine() {
        ThreadGroup g = Thread.currentThread().getThreadGroup();
        return sink != null && g != null && rankGroup.parentOf(g);
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        BiConsumer<String, String> s = sink;
        if (s != null && mine()) {
            send(s, b, off, len);
        } else {
            previous.write(b, off, len);
        }
    }

    private byte[] pending = new byte[0];

    /** Sends whole UTF-8 characters; a character cut at the end of a chunk waits for the next chunk. */
    private synchronized void send(BiConsumer<String, String> s, byte[] b, int off, int len) {
        byte[] all = new byte[pending.length + len];
        System.arraycopy(pending, 0, all, 0, pending.length);
        System.arraycopy(b, off, all, pending.length, len);
        int whole = all.length;
        for (int back = 1; back <= Math.min(3, all.length); back++) {
            int c = all[all.length - back] & 0xff;
            if ((c & 0xc0) == 0x80) {
                continue; // a continuation byte: look further back for the lead byte
            }
            int need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
            if (need > back) {
                whole = all.length - back;
            }
            break;
        }
        pending = java.util.Arrays.copyOfRange(all, whole, all.length);
        if (whole > 0) {
            s.accept(streamName, new String(all, 0, whole, StandardCharsets.UTF_8));
        }
    }

    @Override
    public void flush() throws IOException {
        if (!mine()) {
            previous.flush();
        }
    }
}
