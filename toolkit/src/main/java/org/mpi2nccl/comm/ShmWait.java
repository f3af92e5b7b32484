package org.mpi2nccl.comm;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How a rank waits for another rank's write to shared memory: spin for a while (a peer that is running answers within
 * microseconds), then yield the core in a loop (a peer that is runnable but not running gets it at once), then park
 * for short waits that double up to a millisecond (a peer busy elsewhere costs no CPU).
 *
 * <p>How long to spin depends on where the peer runs, so it adapts between {@link #MIN_SPIN_NANOS} and
 * {@link #MAX_SPIN_NANOS}. When a third process keeps one core busy, the scheduler runs both ranks on the other core,
 * and then every microsecond one rank spins is taken from the peer it waits for. Two ranks on a 2-core machine under
 * other work (load 3.6-6; medians of 3 rounds of 300 calls, fixed spins alternating in the same run) took for 4 KiB,
 * 64 KiB, 256 KiB and 1 MiB:
 * <pre>
 *   spin 100 us   35-206 us   214-218 us   255 us   418-442 us
 *   spin  20 us       45 us        54 us    87 us        236 us
 *   spin   2 us      9.5 us        18 us    51 us        191 us
 * </pre>
 * On a quiet machine it is the other way round: each rank has a core, a yield returns at once without running
 * anything, and the 2 us spin costs latency (4 KiB in 5.3 us against 2.2 us with a 100 us spin) because the loop then
 * polls through a system call. A yield tells the two cases apart: one that gave the core to another thread takes
 * microseconds, one that found nothing else to run returns within one. So a wait whose yields all came back
 * at once and which ended soon after the spin ran out doubles the spin for the next wait; a wait with a long yield
 * (the core is shared) goes back to the shortest spin. Long waits (the peer still computing) change nothing.
 */
final class ShmWait {
    static final long MIN_SPIN_NANOS = 2_000;
    static final long MAX_SPIN_NANOS = 64_000;
    /** A yield that took this long ran another thread on this core. */
    static final long SHARED_CORE_YIELD_NANOS = 3_000;
    private static final long YIELD_NANOS = 2_000_000;
    private static final long MAX_PARK_NANOS = 1_000_000;

    // one rank's waits run on one thread at a time; were two ever to race here, they would only mix two estimates
    private long spinNanos = MIN_SPIN_NANOS;

    /** Polls {@code done} until it is true (returns true) or {@code deadline} passes (returns its last answer). */
    boolean until(BooleanSupplier done, Deadline deadline) {
        if (done.getAsBoolean()) {
            return true;
        }
        long start = System.nanoTime();
        long spin = spinNanos;
        long park = 1_000;
        boolean sharedCore = false;
        while (!done.getAsBoolean()) {
            long now = System.nanoTime();
            long waited = now - start;
            if (waited < spin) {
                Thread.onSpinWait();
            } else if (waited < YIELD_NANOS) {
                Thread.yield();
                if (System.nanoTime() - now > SHARED_CORE_YIELD_NANOS) sharedCore = true;
            } else {
                if (deadline.remainingNanos() == 0) {
                    return done.getAsBoolean();
                }
                LockSupport.parkNanos(park);
                park = Math.min(2 * park, MAX_PARK_NANOS);
            }
        }
        adapt(System.nanoTime() - start, spin, sharedCore);
        return true;
    }

    /** After a wait of {@code waited} ns that began with {@code spin}: the spin for the next wait (see the class comment). */
    void adapt(long waited, long spin, boolean sharedCore) {
        if (sharedCore) {
            spinNanos = MIN_SPIN_NANOS;
        } else if (waited >= spin && waited < 4 * spin + MIN_SPIN_NANOS) {
            spinNanos = Math.min(2 * spin, MAX_SPIN_NANOS);     // the peer answered just after the spin gave up
        }
    }

    /** The spin the next wait starts with (for tests). */
    long spinNanos() {
        return spinNanos;
    }
}
