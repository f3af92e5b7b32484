package org.mpi2nccl.lessons;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.doctor.Doctor;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The exercise checks accept the right answers and explain the usual wrong ones. */
class LessonChecksTest {
    @BeforeAll
    static void notStrict() {
        boolean strict = "1".equals(System.getenv(Check.STRICT_ENV));
        if (strict) {
            System.out.println(Check.STRICT_ENV + "=1: wrong answers throw, explanation tests skipped");
        }
        assumeFalse(strict, Check.STRICT_ENV + "=1: wrong answers throw, explanation tests skipped");
    }

    @Test
    void memoryPerRank() {
        long total = Doctor.physicalMemoryBytes();
        assertTrue(Lesson00.checkMemoryPerRank(total / 4 / (1 << 20)).passed());
        assertTrue(Lesson00.checkMemoryPerRank(total / 4).explanation().contains("bytes, not MiB"));
        assertTrue(Lesson00.checkMemoryPerRank(total / (1 << 20)).explanation().contains("divide by 4"));
        assertTrue(Lesson00.checkMemoryPerRank(0).explanation().contains("no answer yet"));
        assertTrue(Lesson00.checkMemoryPerRank(Runtime.getRuntime().maxMemory() / 4 / (1 << 20)).explanation()
                .contains("heap"));
    }

    @Test
    void coreScalingSummaryFollowsTheNumbers() {
        String tooFast = Lesson00.scalingSummary(scaling(1, 1.9, 3.06, 2.0), 2);
        assertTrue(tooFast.contains("Measured: 3.06x with 3 threads, more than the cores allow"), tooFast);
        String ideal = Lesson00.scalingSummary(scaling(1, 1.9, 1.95, 1.97), 2);
        assertTrue(ideal.contains("Measured: 1.97x with 4 threads; 1.90x with 2 threads, close to the ideal"), ideal);
        String exact = Lesson00.scalingSummary(scaling(1, 2.0, 1.8, 1.1), 2);
        assertTrue(exact.contains("Measured: 2.00x with 2 threads, close to the ideal"), exact);
        assertTrue(ideal.contains("With 4 threads (more than the cores) it was 1.97x"), ideal);
        String busy = Lesson00.scalingSummary(scaling(1, 1.19, 1.79, 2.04), 2);
        assertTrue(busy.contains("Measured: 2.04x with 4 threads; 1.19x with 2 threads, below the ideal 2.0x"), busy);
        // the sentence about extra threads follows the table: here 4 threads beat 2, and it says why, not the opposite
        assertTrue(busy.contains("faster than with 2") && !busy.contains("they add no speed."), busy);
        String one = Lesson00.scalingSummary(scaling(1, 1.0), 1);
        assertTrue(one.startsWith("This machine has 1 core:") && one.contains("extra threads only take turns"), one);
    }

    private static tech.tablesaw.api.Table scaling(double... speedups) {
        return tech.tablesaw.api.Table.create("core scaling",
                tech.tablesaw.api.IntColumn.create("threads", java.util.stream.IntStream.rangeClosed(1, speedups.length).toArray()),
                tech.tablesaw.api.DoubleColumn.create("seconds", Arrays.stream(speedups).map(s -> 1 / s).toArray()),
                tech.tablesaw.api.DoubleColumn.create("speedup", speedups));
    }

    @Test
    void globalMeanRightAnswer() {
        double right = Lesson01.globalMean(4);
        double[] all = {right, right, right, right};
        for (int r = 0; r < 4; r++) {
            assertTrue(Lesson01.checkGlobalMean(r, lessonData(), all).passed());
        }
    }

    @Test
    void globalMeanWrongAnswersAreExplained() {
        double[] local = Lesson01.localData(1);
        double meanOfMeans = 0;
        double sum = 0;
        for (int r = 0; r < 4; r++) {
            meanOfMeans += Arrays.stream(Lesson01.localData(r)).average().getAsDouble() / 4;
            sum += Arrays.stream(Lesson01.localData(r)).sum();
        }
        assertTrue(explain(local, meanOfMeans).contains("mean of the ranks' means"));
        assertTrue(explain(local, meanOfMeans).contains("(here 1000, 2000, 3000 and 4000)"), "the counts behind it");
        assertTrue(explain(local, Arrays.stream(local).average().getAsDouble()).contains("this rank's own mean"));
        assertTrue(explain(local, sum / 4).contains("divided by the number of ranks"));
        assertTrue(explain(local, sum).contains("sum of all values"));
        assertTrue(explain(local, Double.NaN).contains("no answer yet"));
        assertTrue(explain(local, 3.0).contains("not the mean of every rank's values"));
        assertFalse(explain(local, 3.0).contains(String.format(java.util.Locale.ROOT, "%.6f", Lesson01.globalMean(4))),
                "the hint does not print the answer");
        // Reduce: rank 0 holds the mean, ranks 1-3 their own sums' leftovers; every rank is told, rank 0 too
        double right = Lesson01.globalMean(4);
        double[] reduced = {right, Arrays.stream(Lesson01.localData(1)).average().getAsDouble(), 0.0, 0.0};
        for (int r = 0; r < 4; r++) {
            Check c = Lesson01.checkGlobalMean(r, lessonData(), reduced);
            assertFalse(c.passed(), "rank " + r);
            assertTrue(c.explanation().contains("Reduce delivers the result to the root only"), c.explanation());
            assertTrue(c.title().contains("not on ranks 1, 2 and 3"), c.title());
        }
    }

    @Test
    void dataIsTheSameOnEveryRun() {
        assertArrayEquals(Lesson01.localData(2), Lesson01.localData(2));
        assertEquals(3000, Lesson01.localData(2).length);
        assertThrows(IllegalArgumentException.class, () -> Lesson01.localData(-1));
    }

    /** The notebook's 4 ranks' data. */
    private static double[][] lessonData() {
        double[][] data = new double[4][];
        for (int r = 0; r < 4; r++) data[r] = Lesson01.localData(r);
        return data;
    }

    /** Rank 1's verdict when every rank gave {@code answer} ({@code local}: rank 1's data, as the notebook has it). */
    private static String explain(double[] local, double answer) {
        assertArrayEquals(local, Lesson01.localData(1));
        Check c = Lesson01.checkGlobalMean(1, lessonData(), new double[] {answer, answer, answer, answer});
        assertFalse(c.passed());
        return c.explanation();
    }
}
