package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A rank skips a barrier: the stall inspector names the waiting ranks, the call and the program line within
 * seconds of the stall delay; the job still ends at its timeout, with the last report in the error.
 */
class LauncherStallTest {
    @AfterEach
    void nothingLeft() {
        Leftovers.assertNoDescendants();
    }

    @ParameterizedTest
    @EnumSource(MpjDevice.class)
    void theRanksWaitingForOneThatSkippedABarrierAreNamed(MpjDevice device) {
        AtomicLong upAt = new AtomicLong();
        AtomicLong warnedAt = new AtomicLong();
        AtomicReference<String> warning = new AtomicReference<>();
        // The warning must come within 5 s of the ranks being up (asserted below), and before the timeout: so the
        // timeout is those 5 s plus time to start the ranks (up about 0.5 s after the launch on multicore, 1.2 s on
        // niodev, with other tests running beside them).
        Duration timeout = Duration.ofSeconds(device == MpjDevice.MULTICORE ? 8 : 10);
        RunningJob job = Mpj.launch(DyingRank.class).ranks(3).device(device).timeout(timeout)
                .stall(Duration.ofSeconds(2)).args("skip").onLine(l -> {
                    if (l.text().startsWith("rank 2 pid")) upAt.compareAndSet(0, System.nanoTime());
                    if (l.rank() == -1 && l.text().startsWith("stall: ") && warning.compareAndSet(null, l.text())) {
                        warnedAt.set(System.nanoTime());
                    }
                }).start();
        JobTimeoutException e = assertThrows(JobTimeoutException.class, job::awaitResult);
        assertTrue(warning.get() != null, "no stall warning: " + e.getMessage());
        double after = (warnedAt.get() - upAt.get()) / 1e9;
        assertTrue(after < 2 + 3, "warned " + after + " s after the ranks were up (stall delay 2 s)");
        assertTrue(warning.get().matches("stall: ranks 0 and 2 wait in Barrier \\(at DyingRank\\.main\\(DyingRank\\.java:\\d+\\)\\)"
                + " for \\d+ s; rank 1 returned from main: a rank skipped a collective\\?"), warning.get());
        assertTrue(e.getMessage().contains("Last stall: ranks 0 and 2 wait in Barrier"), e.getMessage());
        assertEquals(java.util.List.of(0, 2), e.ranks());
        Leftovers.assertGone(job.pids());
    }
}
