package org.mpi2nccl.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The shared-memory wait's adaptive spin: how one wait's outcome sets the next wait's spin. */
class ShmWaitTest {
    private static final long MIN = ShmWait.MIN_SPIN_NANOS;

    @Test
    void aPeerThatAnswersJustAfterTheSpinDoublesItUpToTheCap() {
        ShmWait w = new ShmWait();
        assertEquals(MIN, w.spinNanos());
        w.adapt(MIN + 500, MIN, false);
        assertEquals(2 * MIN, w.spinNanos());
        for (int i = 0; i < 20; i++) w.adapt(w.spinNanos() + 500, w.spinNanos(), false);
        assertEquals(ShmWait.MAX_SPIN_NANOS, w.spinNanos());
    }

    @Test
    void aLongYieldSendsTheSpinBackToTheShortest() {
        ShmWait w = new ShmWait();
        for (int i = 0; i < 5; i++) w.adapt(w.spinNanos() + 500, w.spinNanos(), false);
        assertTrue(w.spinNanos() > MIN);
        w.adapt(w.spinNanos() + 500, w.spinNanos(), true);
        assertEquals(MIN, w.spinNanos());
    }

    @Test
    void waitsEndedWithinTheSpinOrLongAfterItChangeNothing() {
        ShmWait w = new ShmWait();
        w.adapt(MIN + 500, MIN, false);
        long spin = w.spinNanos();
        w.adapt(spin / 2, spin, false);               // answered during the spin: it is long enough
        assertEquals(spin, w.spinNanos());
        w.adapt(1_000_000, spin, false);             // the peer was still computing: says nothing about latency
        assertEquals(spin, w.spinNanos());
    }

    @Test
    void untilReturnsWhenTheFlagIsSetByAnotherThreadAndGivesUpAtTheDeadline() throws Exception {
        ShmWait w = new ShmWait();
        AtomicBoolean flag = new AtomicBoolean();
        Thread setter = new Thread(() -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            flag.set(true);
        });
        setter.start();
        assertTrue(w.until(flag::get, Deadline.after(Duration.ofSeconds(10))));
        setter.join();
        long t0 = System.nanoTime();
        assertEquals(false, w.until(() -> false, Deadline.after(Duration.ofMillis(50))));
        assertTrue(System.nanoTime() - t0 >= 50_000_000L);
    }
}
