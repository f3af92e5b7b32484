package org.mpi2nccl.launch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Stops processes together with everything they started. Rank JVMs are children of an MPJ daemon, which is
 * our child: the deepest processes go first, so that each parent still lives to reap its children (this
 * container's init does not reap orphans, which would stay behind as zombies).
 */
final class ProcessTree {
    private ProcessTree() {}

    /** The processes and all their living descendants. */
    static Set<ProcessHandle> withDescendants(Collection<ProcessHandle> roots) {
        Set<ProcessHandle> all = new LinkedHashSet<>();
        for (ProcessHandle r : roots) {
            all.add(r);
            r.descendants().forEach(all::add);
        }
        return all;
    }

    /**
     * Kills {@code roots} and their descendants, deepest first, and waits (bounded) until they are gone. An
     * interrupt does not cut the clean-up short: it is kept for the caller.
     */
    static void destroy(Collection<ProcessHandle> roots, Duration wait) {
        boolean interrupted = Thread.interrupted();
        try {
            interrupted |= destroyAndWait(roots, wait);
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /** Returns whether the thread was interrupted while it waited. */
    private static boolean destroyAndWait(Collection<ProcessHandle> roots, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        boolean interrupted = false;
        for (int round = 0; round < 3; round++) {
            List<ProcessHandle> living = new ArrayList<>();
            for (ProcessHandle r : roots) {
                List<ProcessHandle> desc = new ArrayList<>(r.descendants().toList());
                desc.sort(Comparator.comparingInt(ProcessTree::depthUnder).reversed());
                living.addAll(desc);
            }
            living.addAll(roots);
            living.removeIf(p -> !p.isAlive());
            if (living.isEmpty()) return interrupted;
            for (ProcessHandle p : living) {
                p.destroyForcibly();
                interrupted |= awaitExit(p, Math.min(500_000_000L, Math.max(0, deadline - System.nanoTime())));
            }
        }
        return interrupted;
    }

    private static boolean awaitExit(ProcessHandle p, long nanos) {
        try {
            p.onExit().get(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            return true;
        } catch (Exception ignored) {
            // checked again in the next round
        }
        return false;
    }

    private static int depthUnder(ProcessHandle p) {
        int d = 0;
        for (var q = p.parent(); q.isPresent() && d < 64; q = q.get().parent()) d++;
        return d;
    }
}
