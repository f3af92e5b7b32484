package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.lessons.Lesson06.Cause;

/**
 * Lesson 06's diagnosis exercise: the right diagnosis passes, and each wrong one is explained with the clue line of
 * its output and what the chosen cause would have shown. The outputs here are the toolkit's real messages.
 */
class Lesson06Test {
    @BeforeAll
    static void notStrict() {
        assumeFalse("1".equals(System.getenv(Check.STRICT_ENV)), Check.STRICT_ENV + "=1: wrong answers throw");
    }

    /**
     * Job C's output, from a real bootstrap with different ids. A run waits out the clique's 2 s timeout; the tests
     * only read its output, so one run serves them all.
     */
    private static final class Live {
        static final String DIFFERENT_IDS = Lesson06Diagnosis.differentIds();
    }

    private static Lesson06Diagnosis jobs() {
        Map<String, Lesson06Diagnosis.Job> jobs = new LinkedHashMap<>();
        jobs.put("A", new Lesson06Diagnosis.Job("A", "recorded", "[mpj] vm:1:2 [0] NCCL INFO NCCL_SOCKET_IFNAME set by"
                + " environment to nosuchnic0\n[mpj] vm:1:2 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface"
                + " found\nmpjrun: 2-rank niodev job failed: rank 0 threw NcclException", Cause.NETWORK_INTERFACE,
                Pattern.compile("no socket interface found")));
        jobs.put("B", new Lesson06Diagnosis.Job("B", "live", "mpjrun: job failed: rank 0 threw CollectiveTimeoutException:"
                + " rank 0: allReduce #2 (4 x float32, sum) did not finish within 4.0 s (still waiting for the message"
                + " from rank 1)", Cause.SKIPPED_COLLECTIVE, Pattern.compile("did not finish within")));
        jobs.put("C", new Lesson06Diagnosis.Job("C", "live", Live.DIFFERENT_IDS, Cause.DIFFERENT_IDS,
                Pattern.compile("never joined with this id")));
        return new Lesson06Diagnosis(jobs, List.of());
    }

    @Test
    void theRightDiagnosisPasses() {
        Check c = jobs().check(Map.of("A", Cause.NETWORK_INTERFACE, "B", Cause.SKIPPED_COLLECTIVE, "C", Cause.DIFFERENT_IDS));
        assertTrue(c.passed(), c.toString());
        assertTrue(c.title().startsWith("3 of 3"), c.title());
    }

    @Test
    void aBlankDiagnosisSaysNoAnswerYet() {
        Check c = jobs().check(Map.of());
        assertFalse(c.passed());
        assertTrue(c.explanation().contains("A: no answer yet"), c.explanation());
        assertTrue(jobs().check(null).explanation().contains("C: no answer yet"));
    }

    @Test
    void eachWrongDiagnosisQuotesTheClueItMissed() {
        Check c = jobs().check(Map.of("A", Cause.RANK_CRASHED, "B", Cause.RANK_CRASHED, "C", Cause.SKIPPED_COLLECTIVE));
        assertFalse(c.passed());
        assertTrue(c.title().startsWith("0 of 3"), c.title());
        String[] lines = c.explanation().split("\n");
        assertEquals(3, lines.length, c.explanation());
        assertTrue(lines[0].contains("A: you said RANK_CRASHED") && lines[0].contains("no socket interface found")
                && lines[0].contains("NCCL_SOCKET_IFNAME naming an interface"), lines[0]);
        assertTrue(lines[1].contains("did not finish within 4.0 s") && lines[1].contains("its own exception comes first"),
                lines[1]);
        assertTrue(lines[2].contains("never joined with this id") && lines[2].contains("init times out"), lines[2]);
    }

    @Test
    void theLiveBootstrapFaultNamesTheMissingRankOnBothRanks() {
        String out = Live.DIFFERENT_IDS;
        assertTrue(out.contains("[rank 0]") && out.contains("ranks [1], which never joined"), out);
        assertTrue(out.contains("[rank 1]") && out.contains("ranks [0], which never joined"), out);
    }
}
