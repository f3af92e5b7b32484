package org.mpi2nccl.comm.shm;

import org.mpi2nccl.comm.Deadline;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How a rank waits for another rank's write to shared memory: spin for {@link #SPIN_NANOS} (a peer that is running
 * answers within microseconds), then yield the core in a loop (a peer that is runnable but not running gets it at
 * once), then park for short waits that double up to a millisecond (a peer busy elsewhere costs no CPU).
 *
 * <p>Why the spin is so short: when a third process keeps one core busy, the scheduler runs both ranks on the other
 * core, and then every microsecond one rank spins is taken from the peer it waits for: a longer spin makes every
 * size slower on a busy machine, while a spin of a couple of microseconds still catches a peer that is running.
 * (results/cpu-allreduce/tried has a spin that grew after waits ending just past it, tried against this one.)
 * With each rank on a core of its own nothing else is runnable there, so a yield returns at once and the loop polls
 * as often as a spin would. The same holds for more ranks than cores (4 ranks on a 2-core laptop), where the peer
 * being waited for may need this very core.
 */
final class ShmWait {
    static final long SPIN_NANOS = 2_000;
    private static final long YIELD_NANOS = 2_000_000;
    private static final long MAX_PARK_NANOS = 1_000_000;

    /** Polls {@code done} until it is true (returns true) or {@code deadline} passes (returns its last answer). */
    boolean until(BooleanSupplier done, Deadline deadline) {
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
