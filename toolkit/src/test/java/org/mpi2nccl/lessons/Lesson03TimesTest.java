package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Lesson 03's sentence about overlap claims an effect only when the middle halves of the two stages' steps part. */
class Lesson03TimesTest {
    /** A stage's summary whose steps took {@code low}-{@code high} ms in their middle half, {@code median} ms typically. */
    private static Lesson03Meter.Summary steps(double low, double median, double high) {
        return new Lesson03Meter.Summary(3, 1, 0.5, 0.2, 0.3, median, 10, low, high);
    }

    private static String verdict(Lesson03Meter.Summary buckets, Lesson03Meter.Summary overlap) {
        Lesson03Times t = new Lesson03Times();
        t.record(Lesson03Times.BUCKETS, 24, buckets, true);
        t.record(Lesson03Times.OVERLAP, 24, overlap, true);
        return t.verdict();
    }

    @Test
    void aDifferenceInsideTheNoiseIsSaidToBeNoise() {
        String v = verdict(steps(2.0, 2.4, 3.0), steps(2.2, 2.9, 3.4));   // medians 20% apart, ranges overlap
        assertTrue(v.contains("could not tell them apart") && v.contains("2.20-3.40 ms with overlap"), v);
        assertFalse(v.contains("cost time") || v.contains("overlap helped"), v);
    }

    @Test
    void rangesThatPartMakeAClaim() {
        assertTrue(verdict(steps(3.0, 3.2, 3.4), steps(2.0, 2.2, 2.4)).contains("overlap helped here"));
        assertTrue(verdict(steps(2.0, 2.2, 2.4), steps(3.0, 3.2, 3.4)).contains("it cost time"));
    }
}
