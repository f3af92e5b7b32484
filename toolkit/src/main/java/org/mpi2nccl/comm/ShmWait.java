package org.mpi2nccl.comm;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How a rank waits for another rank's write to shared memory: spin a few microseconds (a peer that is running
 * answers in well under that), then yield the core (a peer that is runnable but not running, as on a laptop with
 * more ranks than cores, gets it at once), then park for short waits that double up to a millisecond (a peer busy
 * elsewhere costs no CPU). Open MPI's shared-memory transport and NCCL's proxy poll the same way; a fixed 50 us
 * sleep instead would add 50-100 us to every collective whose peer is a moment late.
 */
final class ShmWait {
    private static final long SPIN_NANOS = 5_000;
    private static final long YIELD_NANOS = 2_000_000;
    private static final long MAX_PARK_NANOS = 1_000_000;

    private ShmWait() {
    }

    /** Polls {@code done} until it is true (returns true) or {@code deadline} passes (returns its last answer). */
    static boolean until(BooleanSupplier done, Deadline deadline) {
        if (done.getAsBoolean()) {
            return true;
        }
        long start = System.nanoTime();
        long park = 1_000;
        while (!done.getAsBoolean()) {
            long waited = System.nanoTime() - start;
            if (waited < SPIN_NANOS) {
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
