package org.mpi2nccl.launch.rank;


import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

/**
 * Ties a JVM the launcher starts (the multicore rank JVM, an MPJ daemon, MPJ's starter) to the launcher's
 * life. The launcher keeps the child's stdin open and never writes to it; when the launcher's JVM ends,
 * even by {@code kill -9} or a notebook kernel restart, the pipe closes, this JVM reads end-of-file, stops
 * every process it started (a daemon's rank JVMs), deletes the job's private MPJ home and halts. Without it, such JVMs would run on forever.
 *
 * <p>As a main class: {@code Lifeline REAL_MAIN_CLASS args...} watches stdin, then runs the real main.
 */
public final class Lifeline {
    private Lifeline() {}

    public static void main(String[] args) throws Throwable {
        watchStdin();
        String[] rest = new String[args.length - 1];
        System.arraycopy(args, 1, rest, 0, rest.length);
        try {
            Class.forName(args[0]).getMethod("main", String[].class).invoke(null, (Object) rest);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Starts the watcher thread (a daemon thread: it never keeps the JVM alive). */
    public static void watchStdin() {
        InputStream in = System.in;
        Thread t = new Thread(() -> {
            byte[] buf = new byte[256];
            try {
                while (in.read(buf) >= 0) {
                    // nothing is ever sent: only end-of-file matters
                }
            } catch (IOException ignored) {
                // a broken pipe means the same as end-of-file
            }
            stopEverything();
        }, "mpj-lifeline");
        t.setDaemon(true);
        t.start();
    }

    private static void stopEverything() {
        List<ProcessHandle> children = ProcessHandle.current().descendants()
                .sorted(Comparator.comparingLong(ProcessHandle::pid).reversed()).toList();
        children.forEach(ProcessHandle::destroyForcibly);
        deleteJobHome();
        Runtime.getRuntime().halt(143);
    }

    /**
     * A niodev job's daemon and starter run from the job's private MPJ home ({@code mpj-job-*} in the user's
     * private temporary folder, their MPJ_HOME), which the launcher deletes when the job ends: with the launcher
     * gone, they delete it themselves.
     * Multicore's MPJ_HOME is the real one, which is never touched.
     */
    private static void deleteJobHome() {
        String home = System.getenv("MPJ_HOME");
        if (home == null || !Path.of(home).getFileName().toString().startsWith(JobHome.PREFIX)) return;
        JobHome.delete(Path.of(home));
    }
}
