package org.mpi2nccl.comm;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How a rank waits for another rank's write to shared memory: spin (a peer that is running answers within
 * microseconds), then yield the core (a peer that is runnable but not running gets it at once), then park for
 * short waits that double up to a millisecond (a peer busy elsewhere costs no CPU). With no more ranks than cores
 * the spin lasts 100 us: a rank that yields after a few microseconds on a busy machine loses its core to another
 * process for a whole time slice (milliseconds) when its peer was only microseconds late; Open MPI's ranks, which
 * never yield unless oversubscribed, would win every small all-reduce. With more ranks than cores (4 ranks on a
 * 2-core laptop) the spin is 2 us: the peer being waited for may need this very core.
 */
final class ShmWait {
    private static final long YIELD_NANOS = 2_000_000;
    private static final long MAX_PARK_NANOS = 1_000_000;

    private final long spinNanos;

    private ShmWait(long spinNanos) {
        this.spinNanos = spinNanos;
    }

    /** The waits of one of {@code ranks} ranks on this machine. */
    static ShmWait forRanks(int ranks) {
        return new ShmWait(ranks <= Runtime.getRuntime().availableProcessors() ? 100_000 : 2_000);
    }

    /** Polls {@code done} until it is true (returns true) or {@code deadline} passes (returns its last answer). */
    boolean until(BooleanSupplier done, Deadline deadline) {
        if (done.getAsBoolean()) {
            return true;
        }
        long start = System.nanoTime();
        long park = 1_000;
        while (!done.getAsBoolean()) {
            long waited = System.nanoTime() - start;
            if (waited < spinNanos) {
                Thread.onSpinWait();
            } else if (waited < YIELD_NANOS) {
                Thread.yield();
            } else {
                if (deadline.remainingNanos() == 0) {
                    return done.getAsBoolean();
                }
                LockSupport.parkNanos(park);
                park = Math.min(2 * park, MAX_PARK_NANOS);
            }
        }
        return true;
    }
}
