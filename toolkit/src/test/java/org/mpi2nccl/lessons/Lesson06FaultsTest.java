package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Lesson 06: its checks accept the right answers and explain the usual wrong ones; the fault runs fail as taught. */
class Lesson06FaultsTest {
    @BeforeAll
    static void notStrict() {
        boolean strict = "1".equals(System.getenv(Check.STRICT_ENV));
        if (strict) System.out.println(Check.STRICT_ENV + "=1: wrong answers throw, explanation tests skipped");
        Assumptions.assumeFalse(strict, Check.STRICT_ENV + "=1: wrong answers throw, explanation tests skipped");
    }

    @Test
    void lesson06FaultsFailAsTaughtAndLeaveNothingRunning() throws Exception {
        // Three separate jobs, each in its own JVM, run side by side: the skip run alone waits out the 4 s timeout.
        ExecutorService pool = Executors.newFixedThreadPool(3);
        Lesson06.Fault mismatch, skip, crash;
        try {
            Future<Lesson06.Fault> m = pool.submit(() -> Lesson06.runFault("mismatch"));
            Future<Lesson06.Fault> s = pool.submit(() -> Lesson06.runFault("skip"));
            Future<Lesson06.Fault> c = pool.submit(() -> Lesson06.runFault("crash"));
            mismatch = m.get();
            skip = s.get();
            crash = c.get();
        } finally {
            pool.shutdown();
        }
        System.out.println(Lesson06.faultTable(List.of(mismatch, skip, crash)).printAll());
        assertTrue(mismatch.error().contains("rank") && mismatch.error().toLowerCase().contains("mismatch"), mismatch.error());
        assertTrue(skip.error().contains("rank 0") && skip.error().contains("did not finish within"), skip.error());
        assertTrue(skip.seconds() >= Lesson06.TIMEOUT.toSeconds(), "the skipped call is found at the timeout: " + skip.seconds());
        assertTrue(mismatch.seconds() < Lesson06.TIMEOUT.toSeconds(), "a mismatch is found at once: " + mismatch.seconds());
        assertTrue(crash.error().contains("rank 1") && crash.error().contains("crashed at training step 3"), crash.error());
        for (Lesson06.Fault f : List.of(mismatch, skip, crash)) assertEquals(0, f.leftoverProcesses(), f.mode());
    }

    @Test
    void lesson06StepsCheckAndNcclTables() {
        assertTrue(Lesson06.checkSteps(0, new int[] {4, 4}).passed());
        assertTrue(Lesson06.checkSteps(1, new int[] {4, 4, 4}).passed());
        assertTrue(Lesson06.checkSteps(0, new int[] {9, 4}).explanation().contains("no other rank answers"));
        // the unchanged starter (each rank its own count): rank 1's 4 is safe alone, but rank 0 plans 9
        Check starter = Lesson06.checkSteps(1, new int[] {9, 4});
        assertFalse(starter.passed());
        assertTrue(starter.explanation().contains("rank 0 plans 9"), starter.explanation());
        // an integer mean agreed by every rank, on 2, 3 and 4 ranks: (9 + 4 (size - 1)) / size is not the smallest count
        for (int size = 2; size <= 4; size++) {
            int mean = (9 + 4 * (size - 1)) / size;
            int[] all = new int[size];
            java.util.Arrays.fill(all, mean);
            Check c = Lesson06.checkSteps(size - 1, all);
            assertFalse(c.passed(), "an integer mean " + mean + " on " + size + " ranks");
            assertTrue(c.explanation().contains("an average is not safe"), c.explanation());
        }
        Check max = Lesson06.checkSteps(1, new int[] {9, 9});
        assertTrue(max.explanation().contains("largest count"), max.explanation());
        Check mixed = Lesson06.checkSteps(0, new int[] {3, 4});
        assertTrue(mixed.explanation().contains("MPI.MIN") && !mixed.passed(), mixed.explanation());
        List<String> log = List.of(
                "[rank 0] host:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>",
                "[rank 0] host:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0",
                "[rank 0] host:1:1 [0] NCCL INFO Channel 00/24 : 0 1",
                "[rank 0] host:1:1 [0] NCCL INFO Channel 01/24 : 0 1",
                "[rank 0] host:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
                "[rank 0] host:1:1 [0] NCCL INFO comm 0x5 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0",
                "[rank 0] host:1:1 [0] NCCL INFO Init COMPLETE");
        var t = Lesson06.explain(log, 20);
        assertEquals(6, t.rowCount(), "the second channel line of the same rank adds nothing: " + t.printAll());
        assertTrue(t.stringColumn("what it says").asList().stream().anyMatch(s -> s.contains("NVLink")));
        var causes = Lesson06.errorCauses();
        assertTrue(causes.stringColumn(1).get(0).contains("NCCL_SOCKET_IFNAME"), causes.printAll());
    }
}
