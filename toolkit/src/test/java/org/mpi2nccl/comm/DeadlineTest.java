package org.mpi2nccl.comm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The bounded poll behind every wait of the communicators, with the default and a long yielding phase. */
class DeadlineTest {
    @Test
    void seesACompletionFromAnotherThreadInBothPhases() throws Exception {
        for (long yieldNanos : new long[] {200_000, 1_000_000_000L}) {
            AtomicBoolean done = new AtomicBoolean();
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(30);                 // past the spin and (default) yield phases
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                done.set(true);
            });
            t.start();
            assertTrue(Deadline.after(Duration.ofSeconds(20)).await(done::get, yieldNanos), "yield window " + yieldNanos);
            t.join();
        }
    }

    @Test
    void givesUpAtTheDeadlineWithoutReturningEarly() {
        AtomicInteger polls = new AtomicInteger();
        long t0 = System.nanoTime();
        boolean ok = Deadline.after(Duration.ofMillis(80)).await(() -> polls.incrementAndGet() < 0, 1_000_000_000L);
        double ms = (System.nanoTime() - t0) / 1e6;
        assertFalse(ok);
        assertTrue(ms >= 80, "returned after " + ms + " ms, before the 80 ms deadline");
        assertTrue(polls.get() > 1, "polled " + polls.get() + " times");
    }
}
