package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleBinaryOperator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.bench.SpeedupResults;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** Lesson 05: the model check accepts the right model and explains the usual wrong ones; the sentences agree with the numbers. */
class Lesson05Test {
    @TempDir
    Path dir;

    /** t_c = 10 ms, t_a = 2 ms: the model predicts 2 x 10 / 12 = 1.667x. */
    private static final Lesson05Timing TIMES = new Lesson05Timing(0.010, 0.002, 400_000, 32);

    @BeforeAll
    static void notStrict() {
        boolean strict = "1".equals(System.getenv(Check.STRICT_ENV));
        Assumptions.assumeFalse(strict, Check.STRICT_ENV + "=1: wrong answers throw, explanation tests skipped");
    }

    /**
     * A live run of one round, 2 epochs: one rank 100 steps of {@code step1} s, two ranks 50 steps of {@code comp2} s
     * computing and {@code comm2} s in the all-reduce; the accuracies after the last epoch.
     */
    private SpeedupResults live(double step1, double comp2, double comm2, double acc1, double acc2) throws Exception {
        Path csv = dir.resolve("epochs.csv");
        StringBuilder s = new StringBuilder("route,ranks,device,epoch,round,epoch_s,samples,steps,forward_s,backward_s,comm_s,optimizer_s,test_acc\n");
        for (int e = 1; e <= 2; e++) {
            s.append(String.format(Locale.ROOT, "single,1,cpu,%d,1,%f,3200,100,%f,%f,0,0,%f%n", e, 100 * step1, 40 * step1, 60 * step1,
                    e == 2 ? acc1 : 0.5));
            s.append(String.format(Locale.ROOT, "mpi,2,cpu,%d,1,%f,3200,50,%f,%f,%f,0,%f%n", e, 50 * (comp2 + comm2), 20 * comp2,
                    30 * comp2, 50 * comm2, e == 2 ? acc2 : 0.5));
        }
        Files.writeString(csv, s);
        return SpeedupResults.fromCsv(List.of(csv));
    }

    private Check check(DoubleBinaryOperator model) throws Exception {
        return Lesson05.checkModel(model, TIMES, live(0.010, 0.010, 0.002, 0.85, 0.85), "mpi");
    }

    @Test
    void theRightModelPassesAndIsComparedWithTheRun() throws Exception {
        Check c = check((tc, ta) -> 2 * tc / (tc + ta));
        assertTrue(c.passed(), c.toString());
        // the run matches the model exactly: 2 x 10 ms per 2 steps against 12 ms per step
        assertTrue(c.explanation().contains("You predicted 1.67x; the live run measured 1.67x"), c.explanation());
        assertTrue(c.explanation().contains("holds within 0%"), c.explanation());
    }

    @Test
    void wrongModelsGetTheirHint() throws Exception {
        assertHint(check((tc, ta) -> 2), "leaves the all-reduce out");
        assertHint(check((tc, ta) -> tc / (tc + ta)), "half as many steps");
        assertHint(check((tc, ta) -> (tc + ta) / (2 * tc)), "upside down");
        assertHint(check((tc, ta) -> 2 * tc / (tc / 2 + ta)), "halved the compute");
        assertHint(check((tc, ta) -> 2 * tc / (tc + 2 * ta)), "count it once");
        assertHint(check((tc, ta) -> 2 * tc / (tc - ta)), "was subtracted");
        assertHint(check((tc, ta) -> 2 * tc / Math.max(tc, ta)), "nothing overlaps");
        // the first wrong place and what the model gave there, never the right speedup (1.667x on these times)
        Check sum = check((tc, ta) -> tc + ta);
        assertHint(sum, "for t_c = 10.0 ms and t_a = 2.00 ms your model gives 12.000x");
        assertFalse(sum.toString().contains("1.667"), sum.toString());
        // the model for one set of times only is not a model: the probes catch it, at the first one it misses
        Check fixed = check((tc, ta) -> 2 * 10.0 / 12.0);
        assertHint(fixed, "for t_c = 3.00 ms and t_a = 6.00 ms your model gives 1.667x");
        assertHint(fixed, "on this machine's times it is right");
        assertFalse(fixed.explanation().contains("0.667"), "the right speedup at the probe is not printed: " + fixed);
    }

    @Test
    void aBlankAnswerIsNotWrittenYet() throws Exception {
        assertHint(check((tc, ta) -> Double.NaN), "not written yet");
        assertHint(check((tc, ta) -> {
            throw new UnsupportedOperationException("write the model");
        }), "not written yet");
        assertHint(check((tc, ta) -> {
            throw new IllegalStateException("oops");
        }), "threw");
    }

    private static void assertHint(Check c, String words) {
        assertFalse(c.passed(), c.toString());
        assertTrue(c.toString().contains(words), "expected '" + words + "' in: " + c);
    }

    @Test
    void theSpeedupSentenceSaysSlowerExactlyWhenBelowOne() {
        for (double m : new double[] {0.73, 0.95, 1.17, 1.32, 1.9}) {
            String s = Lesson05Text.speedup(m, m * 0.95, m * 1.05, 3, Lesson05Text.onCores(2));
            assertEquals(m < 1, s.contains("SLOWER"), s);
            assertTrue(s.contains(String.format(Locale.ROOT, "%.2fx", m)), s);
            assertTrue(s.contains("agree within 11%"), s);
            assertEquals(m * 1.05 > 2, s.contains("A round above 2x"), s);
        }
        String wide = Lesson05Text.speedup(0.95, 0.73, 1.32, 3, Lesson05Text.onCores(2));
        assertTrue(wide.contains("disagree by 81%") && !wide.contains("agree within"), wide);
        assertTrue(wide.contains("2 cores") && wide.contains("needs all of them"), wide);
        assertTrue(Lesson05Text.speedup(1.8, 1.8, 1.8, 3, Lesson05Text.onCores(8)).contains("each rank had one to itself"));
        String gpus = Lesson05Text.speedup(1.87, 1.86, 1.87, 3, Lesson05Text.ON_GPUS);
        assertTrue(gpus.endsWith("Each rank had a GPU of its own.") && !gpus.contains("core"), gpus);
    }

    @Test
    void ranksBeyondTwoAreReportedOnlyWhereTheRouteRanThem() {
        Table t = Table.create("summary", StringColumn.create("route", "single", "nccl", "mpi", "nccl"),
                IntColumn.create("ranks", 1, 2, 2, 4), DoubleColumn.create("speedup_paired", 1, 1.87, 0.15, 3.65),
                DoubleColumn.create("speedup_lo", 1, 1.87, 0.15, 3.6), DoubleColumn.create("speedup_hi", 1, 1.87, 0.15, 3.7));
        String nccl = Lesson05Text.beyondTwo(t, "nccl");
        assertEquals(" With 4 ranks: 3.65x, 91% of the ideal 4x (rounds 3.60x to 3.70x).", nccl);
        assertEquals("", Lesson05Text.beyondTwo(t, "mpi"), "mpi ran on 2 ranks only");
        assertEquals("", Lesson05Text.beyondTwo(t.where(t.intColumn("ranks").isLessThan(3)), "nccl"));
        t.doubleColumn("speedup_lo").set(3, 3.648);
        t.doubleColumn("speedup_hi").set(3, 3.651);
        assertEquals(" With 4 ranks: 3.65x, 91% of the ideal 4x.", Lesson05Text.beyondTwo(t, "nccl"), "rounds equal to the digits shown");
    }

    @Test
    void theAccuracySentenceStatesTheDifferenceAsMeasured() throws Exception {
        String same = Lesson05Text.accuracy(live(0.01, 0.01, 0.002, 0.859, 0.867), "mpi");
        assertTrue(same.contains("same 6400 training examples") && same.contains("85.9%") && same.contains("86.7%")
                && same.contains("+0.8 points") && same.contains("within a point"), same);
        String behind = Lesson05Text.accuracy(live(0.01, 0.01, 0.002, 0.823, 0.768), "mpi");
        assertTrue(behind.contains("-5.5 points") && behind.contains("5.5 points behind") && behind.contains("50 steps per epoch against 100")
                && !behind.contains("within a point"), behind);
        String ahead = Lesson05Text.accuracy(live(0.01, 0.01, 0.002, 0.80, 0.83), "mpi");
        assertTrue(ahead.contains("3.0 points ahead") && !ahead.contains("within a point"), ahead);
    }

    @Test
    void theComparisonExplainsWhereTheModelMissed() throws Exception {
        // the 2-rank step computed 14 ms (not 10) and waited 4 ms in the all-reduce (not 2): 20/18 = 1.11x against 1.67x
        String slow = Lesson05Text.comparison(TIMES, 1.667, live(0.010, 0.014, 0.004, 0.85, 0.85), "mpi");
        assertTrue(slow.contains("measured 1.11x") && slow.contains("33% too optimistic"), slow);
        assertTrue(slow.contains("14.00 ms computing and 4.00 ms in the all-reduce"), slow);
        assertTrue(slow.contains("Computing was slower") && slow.contains("took longer than measured alone"), slow);
        // the one rank ran slower in the experiment than when t_c was timed: the run beats the model
        String beat = Lesson05Text.comparison(TIMES, 1.667, live(0.013, 0.010, 0.002, 0.85, 0.85), "mpi");
        assertTrue(beat.contains("beat the model") && beat.contains("The live 1-rank step took 13.00 ms"), beat);
        assertFalse(beat.contains("Computing was slower"), beat);
        // t_c timed while the machine was busy: the live one rank was faster than t_c
        String busy = Lesson05Text.comparison(TIMES, 1.667, live(0.007, 0.007, 0.002, 0.85, 0.85), "mpi");
        assertTrue(busy.contains("The live 1-rank step took 7.00 ms") && busy.contains("busier when t_c was timed"), busy);
        assertFalse(slow.contains("busier"), slow);
    }

    @Test
    void theRecordedSentenceQuotesTheRecordedSummary() throws Exception {
        Path f = Lesson05.recordedFolder("fashion-vs-ddp");
        Assumptions.assumeTrue(f != null, "no recorded results in this checkout: skipped");
        SpeedupResults r = Lesson05.recorded("fashion-vs-ddp");
        assertNotNull(r);
        String s = Lesson05Text.recorded(r);
        // every route on every GPU count the recording has, each under its count's heading
        var summary = r.summary();
        int quoted = 0;
        for (int i = 0; i < summary.rowCount(); i++) {
            int gpus = summary.intColumn("ranks").getInt(i);
            if (gpus < 2) continue;
            String line = String.format(Locale.ROOT, "  %-10s %.2fx as fast", summary.stringColumn("route").get(i),
                    summary.doubleColumn("speedup_paired").getDouble(i));
            int heading = s.indexOf(gpus + " GPUs:"), at = s.indexOf(line, Math.max(heading, 0));
            assertTrue(heading >= 0 && at > heading, gpus + " GPUs, " + line.trim() + ": " + s);
            quoted++;
        }
        assertTrue(quoted >= 2, "the recording has NCCL and MPI on 2 GPUs at least: " + s);
        assertTrue(s.contains("Test accuracy after 5 epochs: one GPU") && s.contains("NCCL on 2 GPUs"), s);
        // each route's own one-GPU epoch, so that a ratio can be read against the seconds behind it
        String oneGpu = String.format(Locale.ROOT, "1 GPU:%n  %-10s %.3f s an epoch", "toolkit",
                summary.doubleColumn("epoch_s").getDouble(summary.stringColumn("route").indexOf(SpeedupResults.SINGLE)));
        assertTrue(s.contains(oneGpu), oneGpu + " in " + s);
    }
}
