package org.mpi2nccl.comm;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which call of a communicator each thread is in now: "allReduce #12". Only the stall inspector reads it. When a
 * rank waits too long, the inspector looks at its stack, and a stack names the method (allReduce) but not which
 * call of the program it is: two ranks both "in allReduce" may be in calls #12 and #13, because one skipped a
 * call. The sequence number, which {@link AbstractCommunicator} counts for the {@link MetadataCheck} anyway,
 * tells them apart.
 *
 * <p>Kept apart from the communicators, which only say when a call starts and ends: the lesson code stays about
 * moving data. It costs a map update at each end of a call, nothing beside a collective's messages. The map is
 * keyed by thread, not a ThreadLocal, because the inspector reads it from another thread; in MPJ's multicore
 * mode the ranks are threads of one JVM, so each rank's thread has its own entry.
 */
public final class CollectiveInProgress {
    private static final Map<Thread, CollectiveCall> NOW = new ConcurrentHashMap<>();

    private CollectiveInProgress() {
    }

    /** The calling thread starts {@code call}; returns the call it was in before (a call inside a call), or null. */
    static CollectiveCall enter(CollectiveCall call) {
        return NOW.put(Thread.currentThread(), call);
    }

    /** The calling thread's call ended; {@code outer} is what {@link #enter} returned. */
    static void exit(CollectiveCall outer) {
        if (outer == null) {
            NOW.remove(Thread.currentThread());
        } else {
            NOW.put(Thread.currentThread(), outer);
        }
    }

    /** The call {@code thread} is in now (its collective and sequence number), or null when it is in none. */
    public static CollectiveCall of(Thread thread) {
        return NOW.get(thread);
    }
}
