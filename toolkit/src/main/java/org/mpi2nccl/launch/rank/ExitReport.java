package org.mpi2nccl.launch.rank;

/**
 * Tells the launcher how a rank's JVM is leaving when it goes before main returned: a shutdown hook that finds the
 * thread inside {@code Runtime.exit} and names its caller ({@code System.exit at Foo.main(Foo.java:9)}), or says
 * that a signal stopped it. A JVM killed by SIGKILL or a crash runs no hook: the daemon's {@link RankJvmWatch}
 * still reports its exit status.
 */
final class ExitReport {
    private ExitReport() {
    }

    static void install() {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!RankMain.hasEnded()) TaggedOutput.control(Wire.Kind.EXITING, how());
        }, "mpj-exit-report"));
    }

    /** "System.exit at Foo.main(Foo.java:9)", or "stopped by a signal". */
    static String how() {
        for (StackTraceElement[] stack : Thread.getAllStackTraces().values()) {
            for (int i = 0; i < stack.length; i++) {
                if (!stack[i].getClassName().equals("java.lang.Shutdown") || !stack[i].getMethodName().equals("exit")) {
                    continue;
                }
                for (int j = i + 1; j < stack.length; j++) {
                    String c = stack[j].getClassName();
                    if (c.startsWith("java.lang.Terminator") || c.startsWith("jdk.internal.misc.Signal")) {
                        return "stopped by a signal (SIGTERM, SIGINT or SIGHUP)";
                    }
                    if (!c.equals("java.lang.Runtime") && !c.equals("java.lang.System")) {
                        return "System.exit at " + c + "." + stack[j].getMethodName() + "(" + stack[j].getFileName()
                                + ":" + stack[j].getLineNumber() + ")";
                    }
                }
            }
        }
        return "stopped by a signal (SIGTERM, SIGINT or SIGHUP)";
    }
}
