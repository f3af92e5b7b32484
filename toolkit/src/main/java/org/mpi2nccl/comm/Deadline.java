package org.mpi2nccl.comm;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The moment a collective must have finished by. Every wait in this package polls against a deadline, so
 * a missing peer becomes an error instead of a hang.
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

    public boolean expired() {
        return System.nanoTime() - endNanos >= 0;
    }

    public long remainingNanos() {
        return Math.max(0, endNanos - System.nanoTime());
    }

    /**
     * Polls {@code done} until it returns true (then returns true) or the deadline passes (then false).
     * Spins briefly, then yields, then sleeps in steps of at most 50 us: quick for the short waits of a
     * pipelined transfer, gentle on a 2-core machine for the long ones.
     */
    public boolean await(BooleanSupplier done) {
        int polls = 0;
        while (!done.getAsBoolean()) {
            if (expired()) {
                return done.getAsBoolean();
            }
            polls++;
            if (polls < 64) {
                Thread.onSpinWait();
            } else if (polls < 256) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(Math.min(50_000L, 1_000L * (polls - 255)));
            }
        }
        return true;
    }
}
