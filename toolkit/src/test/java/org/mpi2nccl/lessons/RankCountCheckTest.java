package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadRanks;

/**
 * Lessons 01 and 06's checks of a function of an {@link MpiComm}, on thread ranks standing for the notebook's: right
 * answers pass everywhere; the usual wrong ones are explained on every rank; answers right only at the notebook's rank
 * count, or for the lesson's numbers, are caught on the check's own thread ranks; and a failing run leaves the next
 * one on the same ranks unharmed. The students' functions here call MpiComm's methods with the toolkit's types, the
 * ones its MPJ-style methods translate to: MPJ's MPI class needs log4j, which only the ranks' class path has.
 */
class RankCountCheckTest {
    /** The student's calls' timeout here: short, so that a test of a skipped call takes seconds. */
    private static final Duration WAIT = Duration.ofSeconds(1);

    @BeforeAll
    static void notStrict() {
        assumeFalse("1".equals(System.getenv(Check.STRICT_ENV)), Check.STRICT_ENV + "=1: wrong answers throw");
    }

    /** Lesson 01's reference answer. */
    private static double mean(MpiComm comm, double[] local) {
        double[] sumAndCount = {Arrays.stream(local).sum(), local.length}, totals = new double[2];
        comm.allReduce(sumAndCount, 0, totals, 0, 2, DataType.FLOAT64, Reduction.SUM);
        return totals[0] / totals[1];
    }

    private static List<Check> lesson01(int ranks, Lesson01.Mean student) {
        return ThreadRanks.run(ranks, b -> b.timeout(Duration.ofSeconds(20)), Duration.ofSeconds(120),
                c -> Lesson01.check(c, student, WAIT));
    }

    private static List<Check> lesson06(int ranks, Lesson06.Steps student) {
        return ThreadRanks.run(ranks, b -> b.timeout(Duration.ofSeconds(20)), Duration.ofSeconds(120),
                c -> Lesson06Steps.check(c, student));
    }

    /** Every rank's check failed, each title with {@code title} and each explanation with {@code why}. */
    private static void allWrong(List<Check> checks, String title, String why) {
        for (Check c : checks) {
            assertFalse(c.passed(), c.toString());
            assertTrue(c.title().contains(title), c.toString());
            assertTrue(c.explanation().contains(why), c.toString());
        }
    }

    @Test
    void theGlobalMeanIsRightOnEveryRankCount() {
        for (Check c : lesson01(4, RankCountCheckTest::mean)) {
            assertTrue(c.passed(), c.toString());
            assertTrue(c.explanation().contains("1, 2, 3 and 4 ranks as threads"), c.toString());
        }
    }

    @Test
    void reduceAndTheMeanOfMeansAreToldOnTheNotebooksRanks() {
        allWrong(lesson01(4, (comm, local) -> {
            double[] sumAndCount = {Arrays.stream(local).sum(), local.length}, totals = new double[2];
            comm.reduce(sumAndCount, 0, totals, 0, 2, DataType.FLOAT64, Reduction.SUM, 0);
            return totals[0] / totals[1];
        }), "but not on ranks 1, 2 and 3", "Reduce delivers the result to the root only");
        allWrong(lesson01(4, (comm, local) -> {
            double[] meanAndOne = {Arrays.stream(local).average().orElse(0), 1}, totals = new double[2];
            comm.allReduce(meanAndOne, 0, totals, 0, 2, DataType.FLOAT64, Reduction.SUM);
            return totals[0] / totals[1];
        }), "is not the global mean", "the mean of the ranks' means");
    }

    @Test
    void answersRightOnlyForTheNotebookAreCaughtOnThreadRanks() {
        List<Check> hardCoded = lesson01(4, (comm, local) -> {
            double[] sum = {Arrays.stream(local).sum()}, total = new double[1];
            comm.allReduce(sum, 0, total, 0, 1, DataType.FLOAT64, Reduction.SUM);
            return total[0] / 10000;   // the notebook's 4 ranks hold 10000 values
        });
        allWrong(hardCoded, "right on 4 ranks, wrong on 1 rank as threads", "not the cell's rank and size");
        assertTrue(hardCoded.get(2).explanation().startsWith("rank 0 ran your function on thread ranks"), hardCoded.get(2).toString());
        String right = String.format(Locale.ROOT, "%.6f", Arrays.stream(Lesson01.checkData(0, 1)).average().orElseThrow());
        assertFalse(hardCoded.get(0).toString().contains(right), "the hint does not print the answer: " + hardCoded.get(0));
        allWrong(lesson01(4, (comm, local) -> {
            double[] sumAndCount = {Arrays.stream(local).sum(), (comm.Rank() + 1) * 1000}, totals = new double[2];
            comm.allReduce(sumAndCount, 0, totals, 0, 2, DataType.FLOAT64, Reduction.SUM);
            return totals[0] / totals[1];
        }), "right on 4 ranks, wrong on 1 rank as threads", "local.length");
    }

    @Test
    void aFailingRunLeavesTheNextOneOnTheSameRanksUnharmed() {
        // rank 2 throws, then rank 0 alone calls a collective the others never join; then the right answer
        List<List<Check>> runs = ThreadRanks.run(3, b -> b.timeout(Duration.ofSeconds(20)), Duration.ofSeconds(120), c -> List.of(
                Lesson01.check(c, (comm, local) -> {
                    if (comm.Rank() == 2) throw new IllegalStateException("no data here");
                    return mean(comm, local);
                }, WAIT),
                Lesson01.check(c, (comm, local) -> comm.Rank() == 0 ? mean(comm, local) : 0, WAIT),
                Lesson01.check(c, RankCountCheckTest::mean, WAIT)));
        for (List<Check> rank : runs) {
            assertFalse(rank.get(0).passed(), rank.get(0).toString());
            assertTrue(rank.get(0).explanation().contains("no data here"), rank.get(0).toString());
            assertFalse(rank.get(1).passed(), rank.get(1).toString());
            assertTrue(rank.get(2).passed(), "after the failing runs: " + rank.get(2));
        }
        assertTrue(runs.get(1).get(0).explanation().startsWith("on rank 2, first:"), runs.get(1).get(0).toString());
        assertTrue(runs.get(0).get(1).explanation().contains("rank 0"), runs.get(0).get(1).toString());
    }

    @Test
    void theStepsAreTheSmallestCountOnEveryRankCount() {
        for (Check c : lesson06(2, (comm, mine) -> {
            int[] m = {mine}, fewest = new int[1];
            comm.allReduce(m, 0, fewest, 0, 1, DataType.INT32, Reduction.MIN);
            return fewest[0];
        })) {
            assertTrue(c.passed(), c.toString());
        }
        allWrong(lesson06(2, (comm, mine) -> {
            int[] m = {mine}, most = new int[1];
            comm.allReduce(m, 0, most, 0, 1, DataType.INT32, Reduction.MAX);
            return most[0];
        }), "is not safe", "the ranks with fewer batches run out of data");
        List<Check> own = lesson06(2, (comm, mine) -> mine);
        allWrong(own, "is not safe", "");
        assertTrue(own.get(0).explanation().contains("this rank's own batch count"), own.get(0).toString());
        assertTrue(own.get(1).explanation().contains("rank 0 plans 9"), own.get(1).toString());
    }

    @Test
    void stepsRightOnTwoRanksOnlyAreCaughtOnThreadRanks() {
        Lesson06.Steps forTwo = (comm, mine) -> {
            int[] m = {mine}, both = new int[2];
            comm.allGather(m, 0, 1, DataType.INT32, both, 0, 1, DataType.INT32);
            return Math.min(both[0], both[1]);
        };
        allWrong(lesson06(2, forTwo), "right on 2 ranks, wrong on 1 rank as threads", "fewer batches than any rank holds");
        // given 1 rank's right answer, the same code still goes wrong once a third rank holds the fewest
        String three = RankCountCheck.onThreads(2, (rank, p) -> {
            int[] batches = new int[p];
            for (int q = 0; q < p; q++) batches[q] = Lesson06Steps.checkBatches(q, p);
            return new RankCountCheck.Task() {
                @Override
                public double answer(MpiComm comm) {
                    return p == 1 ? batches[0] : forTwo.of(comm, batches[rank]);
                }

                @Override
                public RankCountCheck.Verdict verdict(double[] answers) {
                    int[] steps = Arrays.stream(answers).mapToInt(a -> (int) a).toArray();
                    return Lesson06Steps.verdict(rank, steps, batches);
                }
            };
        }, "", WAIT);
        assertTrue(three != null && three.startsWith("right on 2 ranks, wrong on 3 ranks as threads"), three);
        allWrong(lesson06(2, (comm, mine) -> 4), "right numbers, but not from comm", "made no call on comm");
    }

    @Test
    void theThreadRanksDataDiffersFromTheLessons() {
        for (int p = 2; p <= 4; p++) {
            int[] counts = new int[p];
            long total = 0;
            int fewest = Integer.MAX_VALUE, sum = 0;
            for (int r = 0; r < p; r++) {
                counts[r] = Lesson01.checkData(r, p).length;
                total += counts[r];
                assertNotEquals(Lesson01.localData(r).length, counts[r], "rank " + r + " of " + p);
                fewest = Math.min(fewest, Lesson06Steps.checkBatches(r, p));
                sum += Lesson06Steps.checkBatches(r, p);
            }
            assertEquals(p, Arrays.stream(counts).distinct().count(), "every rank a count of its own: " + Arrays.toString(counts));
            assertNotEquals(0, total % p, "no rank count divides the total");
            assertNotEquals(4, fewest, "not the notebook's smallest count");
            assertTrue(sum / p != fewest && (sum + p - 1) / p != fewest, "no rounded average is the smallest count");
        }
        assertArrayEquals(Lesson01.checkData(1, 3), Lesson01.checkData(1, 3));
    }

    @Test
    void mpiCommSaysWhatIsWrongWithACall() {
        ThreadRanks.run(2, b -> b.timeout(Duration.ofSeconds(20)), c -> {
            MpiComm comm = MpiComm.over(c, WAIT);
            double[] d = {1};
            int[] got = {-1};
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> comm.allReduce(d, 0, new double[1], 0, 1, DataType.INT32, Reduction.SUM));
            assertTrue(e.getMessage().contains("double[], but the call says MPI.INT"), e.getMessage());
            comm.reduce(new int[] {comm.Rank() + 1}, 0, got, 0, 1, DataType.INT32, Reduction.SUM, 0);
            assertEquals(comm.Rank() == 0 ? 3 : -1, got[0], "the root has the sum, the others keep their buffer");
            int[] root = {comm.Rank() == 1 ? 7 : 0};
            comm.broadcast(root, 0, 1, DataType.INT32, 1);
            assertEquals(7, root[0]);
            assertEquals(3, comm.calls(), "the call that threw counts too");
            return null;
        });
    }

}
