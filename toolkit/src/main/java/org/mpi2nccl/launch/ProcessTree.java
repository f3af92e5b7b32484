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

    /** Kills {@code roots} and their descendants, deepest first, and waits (bounded) until they are gone. */
    static void destroy(Collection<ProcessHandle> roots, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        for (int round = 0; round < 3; round++) {
            List<ProcessHandle> living = new ArrayList<>();
            for (ProcessHandle r : roots) {
                List<ProcessHandle> desc = new ArrayList<>(r.descendants().toList());
                desc.sort(Comparator.comparingInt(ProcessTree::depthUnder).reversed());
                living.addAll(desc);
            }
            living.addAll(roots);
            living.removeIf(p -> !p.isAlive());
            if (living.isEmpty()) return;
            for (ProcessHandle p : living) {
                p.destroyForcibly();
                awaitExit(p, Math.min(500_000_000L, Math.max(0, deadline - System.nanoTime())));
            }
        }
    }

    private static void awaitExit(ProcessHandle p, long nanos) {
        try {
            p.onExit().get(nanos, TimeUnit.NANOSECONDS);
        } catch (Exception ignored) {
            // checked again in the next round
        }
    }

    private static int depthUnder(ProcessHandle p) {
        int d = 0;
        for (var q = p.parent(); q.isPresent() && d < 64; q = q.get().parent()) d++;
        return d;
    }
}
