package org.mpi2nccl.comm.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Deadline;

/**
 * The watchdog of NCCL's blocking calls, with a stand-in for the native call (no GPU): a call that never returns by
 * itself ends when the abort releases it, as ncclCommAbort makes a blocked NCCL call return.
 */
@Timeout(20)
class NcclWatchdogTest {

    @Test
    void aCallInTimeReturnsItsResultAndNothingIsAborted() {
        AtomicInteger aborts = new AtomicInteger();
        try (NcclWatchdog w = new NcclWatchdog(3, aborts::incrementAndGet)) {
            for (int i = 0; i < 100; i++) {
                int result = i;
                assertEquals(result, w.call(() -> "ncclAllReduce", Deadline.after(Duration.ofSeconds(5)), () -> result));
            }
            assertEquals(0, aborts.get());
            assertFalse(w.fired());
        }
    }

    @Test
    void aCallStuckInNcclIsAbortedAfterItsDeadlineAndNamesTheRank() throws Exception {
        CountDownLatch released = new CountDownLatch(1);
        AtomicInteger aborts = new AtomicInteger();
        try (NcclWatchdog w = new NcclWatchdog(3, () -> { aborts.incrementAndGet(); released.countDown(); })) {
            long t0 = System.nanoTime();
            CollectiveTimeoutException e = assertThrows(CollectiveTimeoutException.class,
                    () -> w.call(() -> "ncclAllReduce of 1 MiB", Deadline.after(Duration.ofMillis(300)), () -> {
                        try {
                            released.await(15, TimeUnit.SECONDS);        // NCCL waiting for room behind a stuck kernel
                        } catch (InterruptedException x) {
                            Thread.currentThread().interrupt();
                        }
                        return 5;                                      // ncclInternalError, as after an abort
                    }));
            double s = (System.nanoTime() - t0) / 1e9;
            assertTrue(s >= 0.3 && s < 0.3 + 5 * NcclWatchdog.PERIOD_MS / 1000.0, "ended after " + s + " s");
            assertTrue(e.getMessage().contains("rank 3") && e.getMessage().contains("ncclAllReduce of 1 MiB")
                    && e.getMessage().contains("watchdog"), e.getMessage());
            assertEquals(1, aborts.get());
            assertTrue(w.fired());
            CommException after = assertThrows(CommException.class,
                    () -> w.call(() -> "ncclBroadcast", Deadline.after(Duration.ofSeconds(1)), () -> 0));
            assertTrue(after.getMessage().contains("aborted"), after.getMessage());
        }
    }

    @Test
    void anErrorOfTheCallItselfPassesThrough() {
        try (NcclWatchdog w = new NcclWatchdog(0, () -> { })) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> w.call(() -> "ncclAllReduce", Deadline.after(Duration.ofSeconds(5)), () -> {
                        throw new IllegalStateException("bad buffer");
                    }));
            assertEquals("bad buffer", e.getMessage());
            assertEquals(7, w.call(() -> "ncclAllReduce", Deadline.after(Duration.ofSeconds(5)), () -> 7));
        }
    }

    @Test
    void aCallStillStuckAfterTheAbortEndsTheProcessNamingRankAndCall() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        java.util.concurrent.CompletableFuture<String> said = new java.util.concurrent.CompletableFuture<>();
        try (NcclWatchdog w = new NcclWatchdog(1, () -> { }, said::complete)) {
            Thread caller = new Thread(() -> {
                try {
                    w.call(() -> "ncclAllReduce #7", Deadline.after(Duration.ofMillis(300)), () -> {
                        try {
                            never.await();                 // the abort does not free it: NCCL stuck behind the GPU
                        } catch (InterruptedException x) {
                            Thread.currentThread().interrupt();
                        }
                        return 5;
                    });
                } catch (CollectiveTimeoutException expected) {
                    // once released at the end of the test
                }
            });
            caller.setDaemon(true);
            long t0 = System.nanoTime();
            caller.start();
            String message = said.get(15, TimeUnit.SECONDS);
            double s = (System.nanoTime() - t0) / 1e9;
            double grace = NcclWaits.ABORT_GRACE.toMillis() / 1000.0;
            assertTrue(s >= 0.3 + grace && s < 0.3 + grace + 2, "ended after " + s + " s");
            assertTrue(message.startsWith("rank 1: ncclAllReduce #7 did not return within 300 ms, nor 5.0 s after"
                    + " ncclCommAbort"), message);
            never.countDown();
            caller.join(5000);
        }
    }
}
