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
    void globalMeanRightAnswer() {
        double right = Lesson01.globalMean(4);
        for (int r = 0; r < 4; r++) {
            assertTrue(Lesson01.checkGlobalMean(r, 4, Lesson01.localData(r), right).passed());
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
        assertTrue(explain(local, Arrays.stream(local).average().getAsDouble()).contains("this rank's own mean"));
        assertTrue(explain(local, sum / 4).contains("divided by the number of ranks"));
        assertTrue(explain(local, sum).contains("sum of all values"));
        assertTrue(explain(local, Double.NaN).contains("no answer yet"));
        assertTrue(explain(local, 3.0).contains("Reduce delivers the result to the root only"));
        assertFalse(Lesson01.checkGlobalMean(0, 4, Lesson01.localData(0), 3.0).explanation().contains("Reduce"));
    }

    @Test
    void dataIsTheSameOnEveryRun() {
        assertArrayEquals(Lesson01.localData(2), Lesson01.localData(2));
        assertEquals(3000, Lesson01.localData(2).length);
        assertThrows(IllegalArgumentException.class, () -> Lesson01.localData(-1));
    }

    private static String explain(double[] local, double answer) {
        Check c = Lesson01.checkGlobalMean(1, 4, local, answer);
        assertFalse(c.passed());
        return c.explanation();
    }
}
