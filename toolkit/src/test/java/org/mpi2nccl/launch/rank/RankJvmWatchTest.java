package org.mpi2nccl.launch.rank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The exit status the MPJ daemon's watch reports for a rank JVM (run with java.lang opened, as the daemon is): the
 * real one when the watch saw the process alive; unknown (-1), never a made-up 0, when the JVM had already ended and
 * been collected (a rank that dies at once, or a watch that comes late on a busy machine).
 */
class RankJvmWatchTest {
    @Test
    void aProcessWatchedWhileAliveGivesItsRealStatus() throws Exception {
        Process p = new ProcessBuilder("sleep", "30").start();
        var status = RankJvmWatch.exitStatus(p.toHandle());
        new ProcessBuilder("kill", "-9", Long.toString(p.pid())).start().waitFor();
        assertEquals(137, status.get(10, TimeUnit.SECONDS), "128 + SIGKILL");
    }

    @Test
    void aProcessAlreadyCollectedHasAnUnknownStatusNotZero() throws Exception {
        Process p = new ProcessBuilder("sleep", "30").start();
        new ProcessBuilder("kill", "-9", Long.toString(p.pid())).start().waitFor();
        assertEquals(137, p.waitFor(), "collected by the JDK's reaper");
        // -1 once the reaper has let go of the process; its real status while the reaper still holds it (waitFor
        // returns a moment before): either is true, a made-up 0 never is
        int status = RankJvmWatch.exitStatus(p.toHandle()).get(10, TimeUnit.SECONDS);
        assertTrue(status == -1 || status == 137, "unknown or real, got " + status);
    }
}
