package org.mpi2nccl.kernel;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Optional;

/**
 * Ends the kernel when the process that started it is gone. Jupyter's server (or nbclient, or a grader) starts the
 * kernel and normally shuts it down; when that process dies without doing so (killed, crashed), the kernel and its
 * rank engines would run on for ever on a shared machine, holding cores, memory and GPUs. ipykernel does the same
 * check (its parent poller): here the kernel remembers its parent's pid at start and, once a second, compares it
 * with its parent now; when the parent has changed (the kernel was handed to init or a subreaper), it says why on
 * the log and exits, and the JVM's shutdown hook stops the engines.
 */
final class ParentWatch {
    static final Duration PERIOD = Duration.ofSeconds(1);

    private ParentWatch() {
    }

    /** Starts the watch as a daemon thread; does nothing when the kernel has no parent to watch. */
    static void start(PrintStream log) {
        Optional<Long> parent = parentPid();
        if (parent.isEmpty()) return;
        long pid = parent.get();
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(PERIOD.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                if (!parentPid().equals(parent)) {
                    log.println("mpi2nccl kernel: the process that started it (pid " + pid + ") is gone: stopping the"
                            + " kernel and its rank engines");
                    System.exit(0);
                }
            }
        }, "watch-parent");
        t.setDaemon(true);
        t.start();
    }

    private static Optional<Long> parentPid() {
        return ProcessHandle.current().parent().map(ProcessHandle::pid);
    }
}
