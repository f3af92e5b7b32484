package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waiting for an MPJ daemon to listen, with stand-ins for the daemon (a shell run as the command prefix, so that the
 * java command after it is never run): one that exits at once is reported as such without waiting out the timeout,
 * one that never listens is stopped at the timeout.
 */
@Timeout(60)
class MpjDaemonStartTest {
    @TempDir
    Path home;

    private MpjDaemon standIn(String script) {
        return MpjDaemon.start(home, 40999, Path.of("java"), Map.of(), List.of("sh", "-c", script, "sh"), List.of());
    }

    @Test
    void aDaemonThatExitsAtStartIsReportedWithoutWaitingOutTheTimeout() {
        MpjDaemon d = standIn("echo the port is taken; exit 3");
        long t0 = System.nanoTime();
        MpjLaunchException e = assertThrows(MpjLaunchException.class, () -> d.awaitListening(Duration.ofSeconds(30)));
        double s = (System.nanoTime() - t0) / 1e9;
        assertTrue(e.getMessage().contains("port 40999 exited at start"), e.getMessage());
        assertTrue(s < 10, "reported after " + s + " s, not at the 30 s timeout");
        d.close();
    }

    @Test
    void aDaemonThatNeverListensIsStoppedAtTheTimeout() {
        MpjDaemon d = standIn("sleep 50");
        long t0 = System.nanoTime();
        MpjLaunchException e = assertThrows(MpjLaunchException.class, () -> d.awaitListening(Duration.ofMillis(500)));
        double s = (System.nanoTime() - t0) / 1e9;
        assertTrue(e.getMessage().contains("did not listen on port 40999"), e.getMessage());
        assertTrue(s >= 0.5, "waited the whole timeout: " + s + " s");
        assertFalse(d.isAlive(), "stopped once it ran out of time");
    }
}
