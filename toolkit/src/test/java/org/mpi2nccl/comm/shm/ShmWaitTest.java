package org.mpi2nccl.comm.shm;

import org.mpi2nccl.comm.Deadline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The shared-memory wait: it returns once another thread sets the flag, and gives up at its deadline. */
class ShmWaitTest {
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
