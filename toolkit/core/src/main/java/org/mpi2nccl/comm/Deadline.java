package org.mpi2nccl.comm;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The moment a collective must have finished by. Every wait in this package polls against a deadline, so
 * a missing peer becomes an error instead of a hang: what they wait for (an MPJ request, a peer's write to shared
 * memory, an NCCL communicator, a GPU event) has no blocking call with a timeout.
 */
public final class Deadline {
    private final long endNanos;
    private final Duration timeout;

    private Deadline(Duration timeout) {
        this.timeout = timeout;
        long now = System.nanoTime();
        long t = timeout.toNanos();
        this.endNanos = t > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + t;
    }

    public static Deadline after(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        return new Deadline(timeout);
    }

    public Duration timeout() {
        return timeout;
    }

    public long remainingNanos() {
        return Math.max(0, endNanos - System.nanoTime());
    }

    /**
     * Polls {@code done} until it returns true (then returns true) or the deadline passes (then false).
     * Spins for the first 20 us, then yields the core between polls up to 200 us, then sleeps in steps of
     * 50 us: a message that arrives within microseconds is seen at once (a sleep costs about 50 us of timer
     * slack on Linux, more than a small collective takes), and long waits stay gentle on a 2-core machine.
     */
    public boolean await(BooleanSupplier done) {
        return await(done, 200_000);
    }

    /**
     * As {@link #await(BooleanSupplier)}, yielding between polls for up to {@code yieldNanos} before the 50 us sleeps
     * begin. For waits whose end must be seen at once although they last long, e.g. a GPU stream a benchmark times:
     * there a sleep's overshoot (up to a sleep step plus the timer slack) is part of the measured time, and a loop of
     * short collectives pays it on every call. Yielding gives the core to any other runnable thread, as CUDA's own
     * wait does by default.
     */
    public boolean await(BooleanSupplier done, long yieldNanos) {
        if (done.getAsBoolean()) {
            return true;
        }
        long start = System.nanoTime();
        while (!done.getAsBoolean()) {
            long now = System.nanoTime();
            if (now - endNanos >= 0) {
                return done.getAsBoolean();
            }
            long waited = now - start;
            if (waited < 20_000) {
                Thread.onSpinWait();
            } else if (waited < yieldNanos) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
        return true;
    }
}
