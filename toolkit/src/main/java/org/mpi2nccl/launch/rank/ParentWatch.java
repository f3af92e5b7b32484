package org.mpi2nccl.launch.rank;

import java.util.Optional;

/**
 * Ends a niodev rank JVM when the MPJ daemon that started it is gone (killed with kill -9, say). The daemon's own
 * {@link Lifeline} stops its rank JVMs when it ends normally; a daemon killed outright cannot, and its rank JVMs,
 * handed to init, would run on for ever. Checked twice a second: the rank's parent process changes when it dies.
 */
final class ParentWatch {
    static final long PERIOD_MS = 500;

    private ParentWatch() {
    }

    static void start() {
        Optional<ProcessHandle> parent = ProcessHandle.current().parent();
        if (parent.isEmpty()) return;
        long parentPid = parent.get().pid();
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(PERIOD_MS);
                } catch (InterruptedException e) {
                    return;
                }
                long now = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
                if (now != parentPid || !parent.get().isAlive()) {
                    TaggedOutput.control(Wire.Kind.ERR, "the MPJ daemon that started this rank is gone: ending it");
                    Runtime.getRuntime().halt(143);
                }
            }
        }, "mpj-parent-watch");
        t.setDaemon(true);
        t.start();
    }
}
