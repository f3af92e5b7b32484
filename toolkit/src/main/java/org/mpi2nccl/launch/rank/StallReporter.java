package org.mpi2nccl.launch.rank;

/**
 * The rank's half of mpjrun's stall inspector: a thread that looks at the rank's main thread twice a second and,
 * when it has waited in the same MPI or communicator call for the stall delay, sends a {@code where} record
 * ({@code SECONDS|Barrier (at Sum.main(Sum.java:12))}); then again at twice the wait, and so on. The launcher
 * puts the ranks' records together into one warning ({@code org.mpi2nccl.launch.StallReports}).
 *
 * <p>The delay comes from the environment variable {@value #ENV} (milliseconds; 0 turns it off), default 10 s.
 */
public final class StallReporter {
    public static final String ENV = "MPI2NCCL_STALL_MS";
    static final long PERIOD_MS = 500;

    private StallReporter() {
    }

    /** Watches {@code main} (the calling thread, whose rank the watcher inherits) until it ends. */
    static void watch(Thread main) {
        long stallMs = delayMs();
        if (stallMs <= 0) return;
        Thread t = new Thread(() -> {
            String last = null;
            long since = 0;
            long next = stallMs;
            while (main.isAlive()) {
                try {
                    Thread.sleep(PERIOD_MS);        // a period: each look samples where main is, over time
                } catch (InterruptedException e) {
                    return;
                }
                WaitPlace.Place place = WaitPlace.of(main, StallReporter::programLine);
                long now = System.currentTimeMillis();
                String at = place != null && place.inCommunication() ? place.describe() : null;
                if (at == null || !at.equals(last)) {
                    last = at;
                    since = now;
                    next = stallMs;
                } else if (now - since >= next) {
                    TaggedOutput.control(Wire.Kind.WHERE, (now - since) / 1000 + "|" + at);
                    next *= 2;
                }
            }
        }, "mpj-stall-reporter");
        t.setDaemon(true);
        t.start();
    }

    static long delayMs() {
        try {
            String v = System.getenv(ENV);
            return v == null ? 10_000 : Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return 10_000;
        }
    }

    /** "at Sum.main(Sum.java:12)" for a frame of the program; null for the JDK, MPJ, the toolkit's layers. */
    static String programLine(StackTraceElement e) {
        String c = e.getClassName();
        if (WaitPlace.isCommunication(c) || c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.")
                || c.startsWith("org.mpi2nccl.launch.rank.") || c.startsWith("runtime.")) {
            return null;
        }
        return "at " + c.substring(c.lastIndexOf('.') + 1) + "." + e.getMethodName() + "(" + e.getFileName() + ":"
                + e.getLineNumber() + ")";
    }
}
