package org.mpi2nccl.parallel.timing;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A GPU rank waits for its steps in {@link CudaPhaseClock}: the wait must end, with the rank named, when a step never
 * finishes (a collective inside it waits for a rank that is gone), and must not add anything when the step finishes.
 * The GPU's event is stood in for by a condition, so this runs without a GPU.
 */
class StepWaitTest {
    @Test
    void aStepThatNeverFinishesFailsTheRankAfterTheTimeoutNamingIt() {
        long t0 = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CudaPhaseClock.awaitStep(() -> false, Duration.ofMillis(300), "rank 1"));
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(seconds >= 0.3 && seconds < 5, "gave up after " + seconds + " s");
        assertTrue(e.getMessage().startsWith("rank 1: the GPU has not finished a training step"), e.getMessage());
        assertTrue(e.getMessage().contains("skipped"), e.getMessage());
    }

    @Test
    void aStepThatFinishesIsWaitedForUntilItDoes() {
        AtomicInteger polls = new AtomicInteger();
        CudaPhaseClock.awaitStep(() -> polls.incrementAndGet() >= 5, Duration.ofSeconds(5), "rank 0");
        assertTrue(polls.get() == 5, "polled until done: " + polls.get());
    }
}
