package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Allreduce, Bcast and Reduce on 1, 2, 3 and 4 ranks, on both devices. The ranks only report what they
 * received; the expected values are computed here.
 */
class LauncherCollectivesTest {
    @AfterEach
    void nothingLeft() {
        Leftovers.assertNoDescendants();
    }

    /** The four multicore jobs run at the same time too: each is a JVM of its own, started in turn, awaited in turn. */
    @Test
    void multicoreOnOneToFourRanks() {
        List<RunningJob> jobs = new ArrayList<>();
        for (int n = 1; n <= 4; n++) {
            jobs.add(Mpj.launch(CollectivesRank.class).ranks(n).device(MpjDevice.MULTICORE)
                    .args("a", "b c").timeout(Duration.ofSeconds(60)).start());
        }
        try {
            for (int n = 1; n <= 4; n++) {
                RunningJob job = jobs.get(n - 1);
                check(job.awaitResult(), n);
                Leftovers.assertGone(job.pids());
            }
        } finally {
            for (RunningJob job : jobs) if (job.isAlive()) job.stop(); // after a failed check: none outlives the test
        }
    }

    /** The four niodev jobs run at the same time: each has its own daemon and ports, so none collide. */
    @Test
    void niodevOnOneToFourRanksFourJobsAtOnce() {
        List<RunningJob> jobs = new ArrayList<>();
        for (int n = 1; n <= 4; n++) {
            jobs.add(Mpj.launch(CollectivesRank.class).ranks(n).device(MpjDevice.NIODEV)
                    .args("a", "b c").timeout(Duration.ofSeconds(90)).start());
        }
        for (int n = 1; n <= 4; n++) {
            RunningJob job = jobs.get(n - 1);
            check(job.awaitResult(), n);
            Leftovers.assertGone(job.pids());
        }
        // Each job had its own daemon: the niodev rank JVMs (one pid per rank) plus daemon and starter.
        for (int n = 1; n <= 4; n++) {
            assertTrue(jobs.get(n - 1).pids().size() >= n + 2, "daemon, starter and " + n + " rank JVMs");
        }
    }

    private static void check(JobResult r, int n) {
        assertTrue(r.succeeded(), r.toString());
        assertEquals(n, r.ranks());
        assertEquals(n, r.reports().size(), "one report per rank: " + r.reports());
        long sum = n * (n + 1L) / 2;          // ranks contribute 1..n
        long squares = 0;
        for (int k = 0; k < n; k++) squares += (long) k * k;
        for (Map<String, Object> rep : r.reports()) {
            int rank = ((Number) rep.get("rank")).intValue();
            assertEquals(n, ((Number) rep.get("size")).intValue());
            assertEquals(sum, ((Number) rep.get("allreduce")).longValue(), "Allreduce on rank " + rank);
            assertEquals(42.5, ((Number) rep.get("bcast")).doubleValue(), "Bcast from rank 0 on rank " + rank);
            long reduce = ((Number) rep.get("reduce")).longValue();
            assertEquals(rank == n - 1 ? squares : -1, reduce, "Reduce to the last rank, seen on rank " + rank);
            assertEquals("a,b c", rep.get("args"), "MPI.Init returns the program's arguments");
            assertEquals(true, rep.get("native_access"), "every rank JVM gets --enable-native-access=ALL-UNNAMED");
            assertEquals(List.of("rank " + rank + " of " + n + " args a,b c"), r.stdout(rank));
        }
        // multicore: one JVM for all ranks; niodev: one JVM per rank.
        long pids = r.reports().stream().map(m -> m.get("pid")).distinct().count();
        assertEquals(r.device() == MpjDevice.MULTICORE ? 1 : n, pids, "JVMs per job");
        assertEquals(n, r.reportTable().rowCount());
    }
}
