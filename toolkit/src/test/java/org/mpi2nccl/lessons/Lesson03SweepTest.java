package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * The bucket-size sweep of lesson 03's write-up ranks two sizes only when the middle halves of their steps part, and
 * its table lists the sizes smallest first whatever order they ran in.
 */
class Lesson03SweepTest {
    private static Lesson03Meter.Summary steps(double calls, double low, double median, double high) {
        return new Lesson03Meter.Summary(calls, 1, 0.5, 0.2, 0.3, median, 10, low, high);
    }

    @Test
    void sizesThatTheNoiseCannotRankAreNotRanked() {
        Lesson03Sweep s = new Lesson03Sweep();
        s.record(4 << 20, steps(1, 2.2, 2.9, 3.4));
        s.record(16 << 10, steps(6, 2.0, 2.4, 3.0));
        String v = s.verdict();
        assertTrue(v.contains("From 16 KiB to 4 MiB buckets, per step: all-reduce calls 1 instead of 6"), v);
        assertTrue(v.contains("cannot rank the sizes"), v);
        assertFalse(v.contains("larger than this machine's"), v);
        Table t = s.table();
        assertEquals(16.0, t.doubleColumn("bucket (KiB)").get(0));
        assertEquals("2.20-3.40", t.stringColumn("middle half (ms)").get(1));
    }

    @Test
    void sizesWhoseStepsPartAreRanked() {
        Lesson03Sweep s = new Lesson03Sweep();
        s.record(16 << 10, steps(6, 3.0, 3.2, 3.4));
        s.record(300 << 10, steps(3, 2.0, 2.2, 2.4));
        String v = s.verdict();
        assertTrue(v.contains("fastest median step was with 300 KiB buckets (2.20 ms), the slowest with 16 KiB"), v);
        assertTrue(v.contains("larger than this machine's step-to-step noise"), v);
    }

    @Test
    void oneSizeIsNothingToCompare() {
        Lesson03Sweep s = new Lesson03Sweep();
        s.record(16 << 10, steps(6, 3.0, 3.2, 3.4));
        assertTrue(s.verdict().startsWith("Fewer than two bucket sizes"));
    }
}
