package org.mpi2nccl.comm.mpj;

import org.mpi2nccl.comm.CollectiveMismatchException;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommRankMain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.MpjJobException;
import org.mpi2nccl.launch.RankFailedException;

/**
 * The MPI route and the hand-written ring over real MPJ ranks (both devices), through the launcher: every
 * collective checked on every rank, and the failure paths (mismatched calls, a skipped call, a dead rank)
 * ending the job with an error that names the call or the rank, within the timeout.
 */
class MpjCommunicatorTest {

    @ParameterizedTest(name = "{0} on {1} ranks, {2}")
    @CsvSource({
        "mpj, 1, MULTICORE", "mpj, 2, MULTICORE", "mpj, 3, MULTICORE", "mpj, 4, MULTICORE", "mpj, 2, NIODEV",
        "ring, 3, MULTICORE", "ring, 4, MULTICORE", "ring, 2, NIODEV", "naive, 3, MULTICORE",
        "ring-shm, 3, MULTICORE", "shm, 3, MULTICORE", "shm, 2, NIODEV"})
    void everyCollectiveIsCorrectOnEveryRank(String kind, int ranks, MpjDevice device) {
        JobResult r = Mpj.launch(CommRankMain.class).ranks(ranks).device(device).args(kind, "checks")
                .timeout(Duration.ofSeconds(120)).run();
        assertTrue(r.succeeded(), r.toString());
        assertEquals(ranks, r.reports().size(), "one report per rank");
        for (Map<String, Object> rep : r.reports()) {
            assertEquals(0L, ((Number) rep.get("failures")).longValue(), rep.toString());
            assertEquals((long) ranks, ((Number) rep.get("size")).longValue());
        }
    }

    /**
     * MPJ cannot buffer a message near 1 GiB (it rounds buffers up to a power of two), so large calls go in
     * pieces; with pieces of 64 bytes every collective of the checks runs piecewise.
     */
    @ParameterizedTest(name = "{0} in 64-byte pieces")
    @CsvSource({"mpj", "naive"})
    void largeCallsGoInPiecesThatMpjCanBuffer(String kind) {
        JobResult r = Mpj.launch(CommRankMain.class).ranks(3).device(MpjDevice.MULTICORE).args(kind, "checks")
                .jvmArgs("-Dmpi2nccl.mpj.maxBytesPerCall=64").timeout(Duration.ofSeconds(180)).run();
        assertTrue(r.succeeded(), r.toString());
        for (Map<String, Object> rep : r.reports()) {
            assertEquals(0L, ((Number) rep.get("failures")).longValue(), rep.toString());
        }
    }

    @ParameterizedTest(name = "{0} on {1} ranks")
    @CsvSource({"ring, 3", "shm, 4", "naive, 2"})
    void theRingMatchesMpjsOwnAllreduce(String kind, int ranks) {
        JobResult r = Mpj.launch(CommRankMain.class).ranks(ranks).device(MpjDevice.MULTICORE).args(kind, "compare")
                .timeout(Duration.ofSeconds(120)).run();
        assertTrue(r.succeeded(), r.toString());
        for (Map<String, Object> rep : r.reports()) {
            assertEquals(Boolean.TRUE, rep.get("intsIdentical"), "integers bit for bit: " + rep);
            assertTrue(((Number) rep.get("floatRelDiff")).doubleValue() < 1e-6, "floats within rounding: " + rep);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"mpj", "ring"})
    void mismatchedCallsFailAtOnceNamingBothCalls(String kind) {
        long t0 = System.nanoTime();
        RankFailedException e = assertThrows(RankFailedException.class, () -> Mpj.launch(CommRankMain.class).ranks(3)
                .device(MpjDevice.MULTICORE).args(kind, "mismatch", "60000").timeout(Duration.ofSeconds(120)).run());
        double s = (System.nanoTime() - t0) / 1e9;
        assertTrue(e.getMessage().contains("CollectiveMismatchException"), e.getMessage());
        assertNoRankProcessLeft();
        assertTrue(e.getMessage().contains("broadcast #1") && e.getMessage().contains("allReduce #1"), e.getMessage());
        assertTrue(s < 50, "a mismatch must not wait for the 60 s timeout; took " + s + " s");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"mpj", "ring"})
    void aSkippedCollectiveTimesOutNamingTheCallAndTheMissingRank(String kind) {
        long t0 = System.nanoTime();
        RankFailedException e = assertThrows(RankFailedException.class, () -> Mpj.launch(CommRankMain.class).ranks(3)
                .device(MpjDevice.MULTICORE).args(kind, "skip", "1500").timeout(Duration.ofSeconds(60)).run());
        double s = (System.nanoTime() - t0) / 1e9;
        assertTrue(e.getMessage().contains("CollectiveTimeoutException") && e.getMessage().contains("allReduce #2"),
                e.getMessage());
        assertTrue(e.getMessage().contains("rank 2"), "names the rank that never came: " + e.getMessage());
        assertNoRankProcessLeft();
        assertTrue(s < 45, "took " + s + " s");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"mpj", "ring"})
    void aRankThatDiesMidJobTakesTheJobDownNamingIt(String kind) {
        long t0 = System.nanoTime();
        MpjJobException e = assertThrows(MpjJobException.class, () -> Mpj.launch(CommRankMain.class).ranks(3)
                .device(MpjDevice.NIODEV).args(kind, "die", "5000").timeout(Duration.ofSeconds(60)).run());
        double s = (System.nanoTime() - t0) / 1e9;
        // The launcher names the dead rank, or the survivors' communicators name the call that could not finish
        // (whichever reaches the launcher first on a loaded machine).
        assertTrue(e.getMessage().contains("rank 2") || e.getMessage().contains("allReduce #2"), e.getMessage());
        assertNoRankProcessLeft();
        assertTrue(s < 60, "took " + s + " s");
    }

    /** Neither a rank JVM nor an MPJ daemon of the failed job outlives it (checked for 10 s). */
    private static void assertNoRankProcessLeft() {
        long end = System.nanoTime() + 10_000_000_000L;
        java.util.List<String> left;
        do {
            left = ProcessHandle.current().descendants()
                    .filter(p -> p.info().commandLine().map(c -> c.contains("CommRankMain") || c.contains("daemon.jar")
                            || c.contains("starter.jar")).orElse(false))
                    .map(p -> p.pid() + " " + p.info().commandLine().orElse("")).toList();
            if (left.isEmpty()) {
                return;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        } while (System.nanoTime() < end);
        throw new AssertionError("processes left behind by the failed job: " + left);
    }
}
