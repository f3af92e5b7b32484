package org.mpi2nccl.comm.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.Deadline;

/**
 * The bounded wait for blocking NCCL calls (init, finalize), without a GPU: a call that returns in time gives its
 * result, one that hangs is given up at the deadline with the call named and the abort run, an error passes through.
 */
class NcclWaitsTest {
    @Test
    void aCallInTimeGivesItsResult() {
        int r = NcclWaits.bounded("t", 0, "ncclCommFinalize", Deadline.after(Duration.ofSeconds(5)), () -> 7, null, "x");
        assertEquals(7, r);
    }

    @Test
    void aHangingCallIsGivenUpAtTheDeadlineAndAborted() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean aborted = new AtomicBoolean();
        long t0 = System.nanoTime();
        CollectiveTimeoutException e = assertThrows(CollectiveTimeoutException.class, () -> NcclWaits.bounded(
                "nccl-finalize-rank-1", 1, "ncclCommFinalize", Deadline.after(Duration.ofMillis(300)), () -> {
                    release.await(30, TimeUnit.SECONDS);        // stands for NCCL waiting inside the call
                    return 0;
                }, () -> {
                    aborted.set(true);
                    release.countDown();                         // as ncclCommAbort makes the blocked call return
                }, "queued work to finish; aborted with ncclCommAbort"));
        double s = (System.nanoTime() - t0) / 1e9;
        assertTrue(aborted.get(), "the abort ran");
        assertTrue(e.getMessage().contains("rank 1") && e.getMessage().contains("ncclCommFinalize")
                && e.getMessage().contains("ncclCommAbort"), e.getMessage());
        assertTrue(s < 5, "gave up after " + s + " s");
    }

    @Test
    void anErrorInsideTheCallPassesThrough() {
        IllegalStateException boom = new IllegalStateException("boom");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> NcclWaits.bounded("t", 0, "x",
                Deadline.after(Duration.ofSeconds(5)), () -> {
                    throw boom;
                }, null, "x"));
        assertSame(boom, e);
    }

    @Test
    void anAbortThatHangsIsGivenUpAfterItsGrace() {
        CountDownLatch never = new CountDownLatch(1);
        long t0 = System.nanoTime();
        boolean ended = NcclWaits.withinGrace(() -> {
            try {
                never.await();                                   // ncclCommAbort joining a thread stuck behind the GPU
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, Duration.ofMillis(300), "ncclCommAbort");
        double s = (System.nanoTime() - t0) / 1e9;
        assertEquals(false, ended);
        assertTrue(s >= 0.3 && s < 2, "gave up after " + s + " s");
        never.countDown();
        assertTrue(NcclWaits.withinGrace(() -> { }, Duration.ofSeconds(5), "ncclCommAbort"));
        assertTrue(NcclWaits.withinGrace(() -> { throw new IllegalStateException("x"); }, Duration.ofSeconds(5), "ncclCommAbort"),
                "an abort that fails has ended");
    }
}
