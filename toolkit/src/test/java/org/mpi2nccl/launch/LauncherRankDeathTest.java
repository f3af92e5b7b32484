package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * niodev rank JVMs that die (System.exit, kill -9 while sleeping or in a barrier, a JVM that cannot start), ranks
 * that return without MPI.Finalize, and a daemon killed under its ranks: each is named within 5 s, far from the
 * job's 60 s timeout, and no process is left.
 */
class LauncherRankDeathTest {
    private static final Pattern PID = Pattern.compile("rank (\\d+) pid (\\d+)");
    private static final long FIVE_S = 5_000_000_000L;

    @AfterEach
    void nothingLeft() {
        Leftovers.assertNoDescendants();
    }

    /** A 3-rank niodev job of DyingRank in {@code mode}; each rank's pid lands in {@code pids} when it prints it. */
    private static RunningJob start(String mode, Map<Integer, Long> pids, String... jvmArgs) {
        return Mpj.launch(DyingRank.class).ranks(3).device(MpjDevice.NIODEV).timeout(Duration.ofSeconds(60))
                .jvmArgs(jvmArgs).args(mode).onLine(l -> {
                    Matcher m = PID.matcher(l.text());
                    if (m.matches()) pids.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
                }).start();
    }

    private static void awaitPids(Map<Integer, Long> pids, int n) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (pids.size() < n && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(n, pids.size(), "every rank printed its pid: " + pids);
    }

    @Test
    void aRankThatCallsSystemExitIsNamedWithItsStatusAndCaller() throws Exception {
        Map<Integer, Long> pids = new ConcurrentHashMap<>();
        RunningJob job = start("exit", pids);
        awaitPids(pids, 3);
        long t0 = System.nanoTime();
        RankFailedException e = assertThrows(RankFailedException.class, job::awaitResult);
        long took = System.nanoTime() - t0;
        assertTrue(took < FIVE_S, "named " + took / 1e6 + " ms after the ranks were up");
        assertTrue(e.getMessage().contains("rank 1 called System.exit(3) at org.mpi2nccl.launch.DyingRank.main("),
                e.getMessage());
        assertTrue(e.getMessage().contains("stopped ranks [0, 2]"), e.getMessage());
        Leftovers.assertGone(job.pids());
        Leftovers.assertGone(List.copyOf(pids.values()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sleep", "barrier"})
    void aRankKilledWithSigkillIsNamedWithinFiveSeconds(String mode) throws Exception {
        Map<Integer, Long> pids = new ConcurrentHashMap<>();
        RunningJob job = start(mode, pids);
        awaitPids(pids, 3);
        Thread.sleep(300);   // rank 1 is in its sleep or the barrier by now
        long t0 = System.nanoTime();
        ProcessHandle.of(pids.get(1)).orElseThrow().destroyForcibly();
        RankFailedException e = assertThrows(RankFailedException.class, job::awaitResult);
        long took = System.nanoTime() - t0;
        assertTrue(took < FIVE_S, "named " + took / 1e6 + " ms after kill -9");
        assertTrue(e.getMessage().contains("rank 1 was killed by signal 9 (SIGKILL"), e.getMessage());
        assertEquals(List.of(1), e.ranks());
        Leftovers.assertGone(job.pids());
        Leftovers.assertGone(List.copyOf(pids.values()));
    }

    @Test
    void aRankJvmThatCannotStartFailsTheJobAtOnceWithItsWords() {
        long t0 = System.nanoTime();
        RunningJob job = start("exit", new ConcurrentHashMap<>(), "-Xfoo");
        MpjLaunchException e = assertThrows(MpjLaunchException.class, job::awaitResult);
        long took = System.nanoTime() - t0;
        assertTrue(took < 15_000_000_000L, "failed " + took / 1e6 + " ms after the launch (daemon start included)");
        assertTrue(e.getMessage().contains("a rank JVM could not start: Unrecognized option: -Xfoo"), e.getMessage());
        Leftovers.assertGone(job.pids());
    }

    @Test
    void ranksThatReturnWithoutFinalizeEndTheJobWithAWarning() throws Exception {
        Map<Integer, Long> pids = new ConcurrentHashMap<>();
        RunningJob job = start("nofinalize", pids);
        awaitPids(pids, 3);
        long t0 = System.nanoTime();
        JobResult result = job.awaitResult();
        long took = System.nanoTime() - t0;
        assertTrue(took < FIVE_S, "ended " + took / 1e6 + " ms after the ranks were up");
        assertTrue(result.lines().stream().anyMatch(l -> l.rank() == -1
                && l.text().contains("ranks [0, 1, 2] returned from main without MPI.Finalize()")), result.lines().toString());
        Leftovers.assertGone(job.pids());
        Leftovers.assertGone(List.copyOf(pids.values()));
    }

    @Test
    void killingTheDaemonLeavesNoRankJvm() throws Exception {
        Map<Integer, Long> pids = new ConcurrentHashMap<>();
        RunningJob job = start("barrier", pids);
        awaitPids(pids, 3);
        ProcessHandle daemon = ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("DaemonBoot")).findFirst().orElseThrow();
        long t0 = System.nanoTime();
        daemon.destroyForcibly();
        assertThrows(MpjJobException.class, job::awaitResult);
        long took = System.nanoTime() - t0;
        assertTrue(took < FIVE_S, "the job ended " + took / 1e6 + " ms after the daemon was killed");
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < deadline && pids.values().stream().anyMatch(LauncherRankDeathTest::alive)) {
            Thread.sleep(50);
        }
        Leftovers.assertGone(List.copyOf(pids.values()));
        Leftovers.assertGone(job.pids());
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
