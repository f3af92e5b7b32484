package org.mpi2nccl.launch.rank;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs in the MPJ daemon's JVM and reports the exit status of every niodev rank JVM the daemon starts, as an
 * {@code ended} line on the daemon's stdout, which the launcher reads. The launcher cannot see it otherwise: rank
 * JVMs are the daemon's children, not its own, and a rank killed by a signal or ending in System.exit sends no
 * record of its own (MPJ itself only notices when the whole job ends).
 *
 * <p>The status is the one the JDK's process reaper collects for the daemon's own {@code Process} (exit code, or
 * 128 + signal); reading it needs {@code --add-opens java.base/java.lang=ALL-UNNAMED} on the daemon's command line.
 * Without it the status is -1 (unknown) and only the end is reported.
 */
public final class RankJvmWatch {
    static final long PERIOD_MS = 100;

    private RankJvmWatch() {
    }

    /** Watches the daemon's children from now on, writing to {@code out}. */
    public static void start(PrintStream out) {
        Set<Long> watched = ConcurrentHashMap.newKeySet();
        Thread t = new Thread(() -> {
            while (true) {
                ProcessHandle.current().children().forEach(child -> {
                    if (watched.contains(child.pid())) return;
                    int rank = rankOf(child);
                    if (rank < 0) return;   // not a rank JVM, or not exec'd yet: looked at again next round
                    watched.add(child.pid());
                    exitStatus(child).thenAccept(status -> {
                        synchronized (out) {
                            out.println(Wire.encode(rank, Wire.Kind.ENDED, Integer.toString(status)));
                            out.flush();
                        }
                    });
                });
                try {
                    // a period: no event tells of a new child process; each one's end comes from exitStatus, not from here
                    Thread.sleep(PERIOD_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "mpj-rank-jvm-watch");
        t.setDaemon(true);
        t.start();
    }

    /** MPJ's wrapper gets {@code ... RANK org.mpi2nccl.launch.rank.NiodevBoot MAIN args}: the rank, or -1. */
    public static int rankOf(ProcessHandle p) {
        List<String> args = arguments(p);
        int boot = args.indexOf(NiodevBoot.class.getName());
        if (boot < 1) return -1;
        try {
            return Integer.parseInt(args.get(boot - 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * The process's arguments. The JDK gives none for a long command line (a rank's class path from a Maven
     * repository is one): on Linux they are read from /proc whole.
     */
    public static List<String> arguments(ProcessHandle p) {
        try {
            String all = new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")),
                    StandardCharsets.UTF_8);
            return List.of(all.split("\0"));
        } catch (IOException | RuntimeException e) {
            return List.of(p.info().arguments().orElse(new String[0]));
        }
    }

    /**
     * The child's exit status as the daemon's process reaper sees it; -1 when it cannot be read. The JDK hands out
     * the reaper's own completion while the child runs or is not yet collected; a child that ended and was collected
     * before this call (a rank JVM that dies at once, e.g. of a tiny heap) gets a new completion that cannot wait for
     * a process that is no longer a child, and that completes with 0: such a status is unknown, not 0.
     */
    @SuppressWarnings("unchecked")
    static CompletableFuture<Integer> exitStatus(ProcessHandle child) {
        try {
            Method completion = Class.forName("java.lang.ProcessHandleImpl")
                    .getDeclaredMethod("completion", long.class, boolean.class);
            completion.setAccessible(true);
            CompletableFuture<Integer> f = (CompletableFuture<Integer>) completion.invoke(null, child.pid(), false);
            if (f != null) {
                Field reaping = f.getClass().getDeclaredField("isReaping");
                reaping.setAccessible(true);
                if (!reaping.getBoolean(f)) return f.handle((status, e) -> -1);   // not the reaper's: no status
                return f.exceptionally(e -> -1);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // java.lang not opened to us: fall through
        }
        return child.onExit().thenApply(h -> -1);
    }
}
