package org.mpi2nccl.launch.rank;

import java.util.Optional;

/**
 * Ends a process of the toolkit when the process that started it is gone (killed with kill -9, say), which could
 * not stop it: a niodev rank JVM whose MPJ daemon died ({@link #start}), and the Jupyter kernel whose Jupyter server
 * or nbclient died. Handed to init, either would run on for ever on a shared machine, holding cores, memory and GPUs.
 * ipykernel's parent poller does the same: the parent's pid is remembered at start and compared with the parent now.
 */
public final class ParentWatch {
    static final long PERIOD_MS = 500;

    private ParentWatch() {
    }

    /** A niodev rank JVM: checked twice a second, it tells the launcher and halts when its daemon is gone. */
    static void start() {
        onParentGone("mpj-parent-watch", PERIOD_MS, () -> {
            TaggedOutput.control(Wire.Kind.ERR, "the MPJ daemon that started this rank is gone: ending it");
            Runtime.getRuntime().halt(143);
        });
    }

    /**
     * Runs {@code whenGone} on a daemon thread named {@code name} once this process's parent has changed or ended,
     * checked every {@code periodMs}; nothing when the process has no parent to watch.
     */
    public static void onParentGone(String name, long periodMs, Runnable whenGone) {
        Optional<ProcessHandle> parent = ProcessHandle.current().parent();
        if (parent.isEmpty()) return;
        long parentPid = parent.get().pid();
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    // a period: a parent that is not our child has no blocking wait (ProcessHandle.onExit itself sleeps
                    // in growing steps for such a process), and a new parent (re-parenting to init) has no event at all
                    Thread.sleep(periodMs);
                } catch (InterruptedException e) {
                    return;
                }
                long now = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
                if (now != parentPid || !parent.get().isAlive()) {
                    whenGone.run();
                    return;
                }
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }
}
