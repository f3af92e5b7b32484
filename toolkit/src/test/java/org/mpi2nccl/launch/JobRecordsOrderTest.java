package org.mpi2nccl.launch;

import org.junit.jupiter.api.Test;
import org.mpi2nccl.launch.rank.Wire;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A niodev rank's end comes by two pipes: the daemon's {@code ended} record and the rank's own {@code done} or
 * {@code fail}. On a loaded machine either may come first; only a rank whose main never returned has died.
 */
class JobRecordsOrderTest {

    private static JobRecords twoRanks() {
        return new JobRecords(2, List.of());
    }

    private static void say(JobRecords r, int rank, Wire.Kind kind, String text) {
        r.onRawLine(Wire.encode(rank, kind, text), false);
    }

    @Test
    void theDaemonsEndedRecordOvertakingTheRanksDoneIsNoDeath() {
        JobRecords r = twoRanks();
        say(r, 1, Wire.Kind.ENDED, "0");
        assertTrue(r.anyFailed(), "until rank 1's own record comes, its JVM ended before main returned");
        say(r, 1, Wire.Kind.DONE, "");
        say(r, 0, Wire.Kind.DONE, "");
        say(r, 0, Wire.Kind.ENDED, "0");
        assertFalse(r.anyFailed());
        assertTrue(r.allReturned());
        assertEquals(List.of(), r.deaths.failures());
        assertEquals(List.of(), r.notEnded(), "both JVMs were seen to end");
    }

    @Test
    void aJvmThatEndedWithoutItsMainReturningIsADeathNamingTheRank() {
        JobRecords r = twoRanks();
        say(r, 0, Wire.Kind.DONE, "");
        say(r, 1, Wire.Kind.EXITING, "System.exit at Foo.main(Foo.java:9)");
        say(r, 1, Wire.Kind.ENDED, "3");
        assertTrue(r.anyFailed());
        List<RankFailure> deaths = r.deaths.failures();
        assertEquals(1, deaths.size());
        assertEquals(1, deaths.get(0).rank());
        assertEquals("rank 1 called System.exit(3) at Foo.main(Foo.java:9)", deaths.get(0).summary());
    }
}
