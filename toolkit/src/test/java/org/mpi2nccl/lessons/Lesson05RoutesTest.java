package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.parallel.timing.TimeBreakdown;
import tech.tablesaw.api.Table;

/** Lesson 05's route comparison: the table and the sentences follow the numbers, whichever route was faster. */
class Lesson05RoutesTest {
    /** 10 steps of {@code forwardMs} forward, 10 ms backward, {@code commMs} communication, 1 ms optimizer, each. */
    private static TimeBreakdown steps(double forwardMs, double commMs) {
        long n = 10, ms = 1_000_000;
        return new TimeBreakdown(n, Math.round(n * forwardMs * ms), n * 10 * ms, Math.round(n * commMs * ms), n * ms,
                0, Math.round(n * commMs * ms), 0, 3 * n, 3 * n * 400_000);
    }

    @Test
    void theRingFasterIsSaidWithBothFigures() {
        String s = Lesson05Routes.verdict(steps(5, 8), steps(5, 2));
        assertTrue(s.contains("ring over shared memory spent 2.00 ms per step communicating, MPJ's Allreduce 8.00 ms"), s);
        assertTrue(s.contains("4.0x shorter"), s);
        assertTrue(s.contains("the same work, so the routes differ in communication only"), s);
        assertTrue(s.contains("24.00 ms with MPJ and 18.00 ms with the ring"), s);
    }

    @Test
    void mpjFasterOrTheSameIsSaidSo() {
        String mpjFaster = Lesson05Routes.verdict(steps(5, 2), steps(5, 6));
        assertTrue(mpjFaster.contains("MPJ's was 3.0x shorter here"), mpjFaster);
        assertFalse(mpjFaster.contains("The ring's communication was"), mpjFaster);
        String same = Lesson05Routes.verdict(steps(5, 4), steps(5, 4.2));
        assertTrue(same.contains("within 15% of each other"), same);
    }

    @Test
    void computeThatDiffersIsBlamedOnTheMachineNotCalledTheSame() {
        String s = Lesson05Routes.verdict(steps(5, 8), steps(15, 2));
        assertFalse(s.contains("differ in communication only"), s);
        assertTrue(s.contains("16.00 ms with MPJ and 26.00 ms with the ring: the same work, 63% apart"), s);
        assertEquals("No steps were timed on one of the routes: nothing to compare.",
                Lesson05Routes.verdict(new TimeBreakdown(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), steps(5, 2)));
    }

    @Test
    void theMedianRoundAndTheTable() {
        TimeBreakdown slow = steps(50, 5), mid = steps(6, 5), fast = steps(5, 5);
        assertEquals(mid, Lesson05Routes.median(List.of(slow, fast, mid)));
        Table t = Lesson05Routes.table(steps(5, 8), steps(5, 2));
        assertEquals(List.of("route", "step (ms)", "forward (ms)", "backward (ms)", "comm not hidden (ms)", "optimizer (ms)",
                "all-reduces per step"), t.columnNames());
        assertEquals("ring over shared memory", t.stringColumn("route").get(1));
        assertEquals(18.0, t.doubleColumn("step (ms)").get(1), 1e-9);
        assertEquals(3.0, t.doubleColumn("all-reduces per step").get(0), 1e-9);
    }
}
