package org.mpi2nccl.launch.rank;

import java.io.PrintStream;

/**
 * The main class of an MPJ daemon the launcher starts: {@link Lifeline} (the daemon ends with the launcher),
 * {@link RankJvmWatch} (the launcher learns how each rank JVM ended), then MPJ's own daemon with the arguments.
 */
public final class DaemonBoot {
    private DaemonBoot() {
    }

    public static void main(String[] args) throws Throwable {
        PrintStream out = System.out;   // the launcher's pipe, whatever MPJ does with System.out later
        RankJvmWatch.start(out);
        String[] withMain = new String[args.length + 1];
        withMain[0] = "runtime.daemon.MPJDaemon";
        System.arraycopy(args, 0, withMain, 1, args.length);
        Lifeline.main(withMain);
    }
}
