package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A niodev rank JVM too small to run (a heap of 3 MiB fails in the JVM's own threads, before the rank can say
 * anything tagged): the job's error names the OutOfMemoryError and how to give the ranks more, not only "exit
 * status 0".
 */
class LauncherHeapTest {
    @AfterEach
    void nothingLeft() {
        Leftovers.assertNoDescendants();
    }

    @Test
    void aRankJvmWithoutEnoughHeapIsNamedWithTheFix() {
        RunningJob job = Mpj.launch(PartialSum.class).ranks(2).device(MpjDevice.NIODEV).jvmArgs("-Xmx3m")
                .timeout(Duration.ofSeconds(60)).start();
        RankFailedException e = assertThrows(RankFailedException.class, job::awaitResult);
        assertTrue(e.getMessage().contains("OutOfMemoryError") && e.getMessage().contains("--jvm-arg=-Xmx"), e.getMessage());
        Leftovers.assertGone(job.pids());
    }

    @Test
    void mpjsLinesGiveTheErrorAndItsFix() {
        assertEquals("", JobEnding.jvmErrors(List.of("some chatter", "Connection refused")));
        assertEquals(". A rank JVM said: Exception in thread \"main\" java.lang.StackOverflowError: a rank's stack is too"
                + " small or its recursion endless (--jvm-arg=-Xss8m)",
                JobEnding.jvmErrors(List.of("  Exception in thread \"main\" java.lang.StackOverflowError")));
    }
}
