package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.launch.StallReports;
import org.mpi2nccl.lessons.RankCountCheck.Verdict;

/**
 * Lesson 01, MPI basics: each rank holds a different amount of data ({@link #localData}); the exercise asks for a
 * function that gives every rank the mean of all of it, with one collective of the {@link MpiComm} it is given. The
 * check runs it on the notebook's ranks and on 1 to 4 ranks as threads ({@link RankCountCheck}).
 */
public final class Lesson01 {
    private Lesson01() {
    }

    /**
     * Rank {@code rank}'s numbers: (rank + 1) * 1000 values around 20 - 3 * rank, the same on every run (other ones
     * while a grader runs the notebook: {@link Grading#seed}). Ranks with more values have smaller ones, so a mean
     * that weighs ranks equally is visibly wrong.
     */
    public static double[] localData(int rank) {
        return localData(rank, Grading.seed());
    }

    /** {@link #localData(int)} for a grading seed (0: the lesson's own numbers). */
    public static double[] localData(int rank, long seed) {
        if (rank < 0) {
            throw new IllegalArgumentException("a rank is 0 or more, not " + rank);
        }
        Random r = new Random(1000 + rank + 7919L * seed);
        double[] xs = new double[(rank + 1) * 1000];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = 20.0 - 3.0 * rank + r.nextGaussian();
        }
        return xs;
    }

    /** The right answer for a job of {@code size} ranks (computed here from every rank's data). */
    public static double globalMean(int size) {
        return globalMean(size, Grading.seed());
    }

    /** The right answer for a grading seed: what the grader compares a submission's answers with. */
    public static double globalMean(int size, long seed) {
        double sum = 0;
        long count = 0;
        for (int r = 0; r < size; r++) {
            double[] xs = localData(r, seed);
            sum += Arrays.stream(xs).sum();
            count += xs.length;
        }
        return sum / count;
    }

    /** The student's answer: the mean of every rank's values, on every rank, from this rank's own {@code local}. */
    @FunctionalInterface
    public interface Mean {
        double of(MpiComm comm, double[] local);
    }

    /**
     * Rank {@code rank}'s numbers when the check runs the student's function on {@code ranks} thread ranks: counts
     * unlike the lesson's (rank 0 holds the most) whose total no rank count divides, so that an answer built on the
     * lesson's counts, or on the notebook's number of ranks, shows.
     */
    static double[] checkData(int rank, int ranks) {
        Random r = new Random(31L * ranks + rank);
        double[] xs = new double[1000 * (ranks - rank) + rank * rank + 3];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = 20.0 - 3.0 * rank + r.nextGaussian();
        }
        return xs;
    }

    /**
     * Checks the student's function on the notebook's ranks (each with {@link #localData}), then on 1 to 4 ranks as
     * threads ({@link #checkData}). Collective: every rank of the notebook calls it.
     */
    public static Check checkGlobalMean(Mean student) {
        try (MpjCommunicator world = MpjCommunicator.world()) {
            return check(world, student);
        }
    }

    /** {@link #checkGlobalMean(Mean)} on {@code world}'s ranks. Collective. */
    static Check check(Communicator world, Mean student) {
        return check(world, student, RankCountCheck.WAIT);
    }

    /** {@link #check(Communicator, Mean)} whose student's calls wait at most {@code wait}. */
    static Check check(Communicator world, Mean student, java.time.Duration wait) {
        int size = world.size();
        double[][] data = new double[size][];
        for (int r = 0; r < size; r++) data[r] = localData(r);
        return RankCountCheck.check(world, (rank, p) -> task(student, rank, data, true),
                (rank, p) -> task(student, rank, threadData(p), false), "Does your function use only what it is"
                        + " given: comm (comm.Rank(), comm.Size()) and local (local.length), not the cell's rank and size"
                        + " or the lesson's counts?", wait);
    }

    private static double[][] threadData(int ranks) {
        double[][] data = new double[ranks][];
        for (int r = 0; r < ranks; r++) data[r] = checkData(r, ranks);
        return data;
    }

    /** Rank {@code rank}'s part of a run; {@code graded}: the notebook's ranks, whose answers a grader compares. */
    private static RankCountCheck.Task task(Mean student, int rank, double[][] data, boolean graded) {
        return new RankCountCheck.Task() {
            @Override
            public double answer(MpiComm comm) {
                double mean = student.of(comm, data[rank].clone());
                if (graded) Grading.record("global-mean", mean);
                return mean;
            }

            @Override
            public Verdict verdict(double[] answers) {
                return Lesson01.verdict(rank, data, answers);
            }
        };
    }

    /** The verdict for rank {@code rank}, given every rank's data ({@code data[r]}) and answer ({@code answers[r]}). */
    public static Check checkGlobalMean(int rank, double[][] data, double[] answers) {
        return verdict(rank, data, answers).toCheck();
    }

    static RankCountCheck.Verdict verdict(int rank, double[][] data, double[] answers) {
        int size = answers.length;
        double sum = 0, meanOfMeans = 0;
        long count = 0;
        for (double[] xs : data) {
            sum += Arrays.stream(xs).sum();
            count += xs.length;
            meanOfMeans += Arrays.stream(xs).average().orElse(0) / size;
        }
        double right = sum / count, answer = answers[rank];
        String who = "rank " + rank + ": ";
        List<Integer> wrong = new ArrayList<>();
        for (int r = 0; r < size; r++) if (!close(answers[r], right)) wrong.add(r);
        if (wrong.isEmpty()) {
            return Verdict.right(who + "global mean " + fmt(answer), "every value of every rank counted once, on every rank.");
        }
        if (!wrong.contains(0)) {
            return Verdict.wrong(who + (close(answer, right) ? "the mean here, " : fmt(answer) + ", ") + "but not on "
                    + StallReports.label(wrong), "rank 0 holds the mean and the other ranks"
                    + " do not: Reduce delivers the result to the root only (the others' receive buffers keep what they"
                    + " held); Allreduce gives it to every rank, and every rank needs it.");
        }
        if (close(answer, right)) {
            return Verdict.wrong(who + "the mean here, but not on " + StallReports.label(wrong),
                    "every rank must end with the mean: one collective that gives the result to all of them.");
        }
        double localMean = Arrays.stream(data[rank]).average().orElse(Double.NaN);
        String why;
        if (Double.isNaN(answer)) {
            why = "no answer yet (globalMean returned NaN): compute the mean with a collective of comm.";
        } else if (size > 1 && close(answer, localMean)) {
            why = "that is this rank's own mean: the other ranks' data is missing. Combine the ranks with a collective.";
        } else if (size > 1 && close(answer, meanOfMeans)) {
            why = "that is the mean of the ranks' means. It weighs every rank the same, but the ranks hold different"
                    + " numbers of values (here " + counts(data) + "): add up sums and counts, then divide.";
        } else if (size > 1 && close(answer, sum / size)) {
            why = "that is the total divided by the number of ranks: divide by the total number of values instead.";
        } else if (close(answer, sum)) {
            why = "that is the sum of all values: divide it by how many values there are in total.";
        } else {
            why = "not the mean of every rank's values: add up every rank's sum and count with one collective, then divide.";
        }
        return Verdict.wrong(who + fmt(answer) + " is not the global mean", why);
    }

    /** "1000, 2000, 3000 and 4000". */
    private static String counts(double[][] data) {
        List<String> n = new ArrayList<>();
        for (double[] xs : data) n.add(Integer.toString(xs.length));
        return n.size() == 1 ? n.get(0) : String.join(", ", n.subList(0, n.size() - 1)) + " and " + n.get(n.size() - 1);
    }

    private static boolean close(double a, double b) {
        return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
    }

    private static String fmt(double x) {
        return String.format(java.util.Locale.ROOT, "%.6f", x);
    }
}
