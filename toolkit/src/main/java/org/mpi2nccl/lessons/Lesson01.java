package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.mpi2nccl.launch.StallReports;

/**
 * Lesson 01, MPI basics: each rank holds a different amount of data ({@link #localData}); the exercise asks for
 * the mean of all of it on every rank, with one collective.
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

    /**
     * Checks the ranks' answers and explains the usual wrong ones. Collective (a {@code %%mpj} cell runs it on every
     * rank): the answers are gathered first, so every rank hears when another rank does not hold the mean (Reduce
     * leaves it on the root alone).
     */
    public static Check checkGlobalMean(int rank, int size, double[] local, double answer) {
        Grading.record("global-mean", answer);
        double[] mine = {answer}, all = new double[size];
        mpi.MPI.COMM_WORLD.Allgather(mine, 0, 1, mpi.MPI.DOUBLE, all, 0, 1, mpi.MPI.DOUBLE);
        return checkGlobalMean(rank, local, all);
    }

    /** The verdict for rank {@code rank} (holding {@code local}), given every rank's answer ({@code answers[r]}). */
    public static Check checkGlobalMean(int rank, double[] local, double[] answers) {
        int size = answers.length;
        double right = globalMean(size), answer = answers[rank];
        String who = "rank " + rank + ": ";
        List<Integer> wrong = new ArrayList<>();
        for (int r = 0; r < size; r++) if (!close(answers[r], right)) wrong.add(r);
        if (wrong.isEmpty()) {
            return Check.right(who + "global mean " + fmt(answer), "every value of every rank counted once, on every rank.");
        }
        if (!wrong.contains(0)) {
            return Check.wrong(who + (close(answer, right) ? "the mean here, " : fmt(answer) + ", ") + "but not on "
                    + StallReports.label(wrong), "rank 0 holds the mean and the other ranks"
                    + " do not: Reduce delivers the result to the root only (the others keep what they sent, or"
                    + " leftovers); Allreduce gives it to every rank, and every rank needs it.");
        }
        if (close(answer, right)) {
            return Check.wrong(who + "the mean here, but not on " + StallReports.label(wrong),
                    "every rank must end with the mean: one collective that gives the result to all of them.");
        }
        double localMean = Arrays.stream(local).average().orElse(Double.NaN);
        double meanOfMeans = 0;
        double globalSum = 0;
        for (int r = 0; r < size; r++) {
            meanOfMeans += Arrays.stream(localData(r, Grading.seed())).average().orElse(0) / size;
            globalSum += Arrays.stream(localData(r, Grading.seed())).sum();
        }
        String why;
        if (Double.isNaN(answer)) {
            why = "no answer yet (globalMean is NaN): compute it with a collective.";
        } else if (close(answer, localMean)) {
            why = "that is this rank's own mean: the other ranks' data is missing. Combine the ranks with a collective.";
        } else if (close(answer, meanOfMeans)) {
            why = "that is the mean of the ranks' means. It weighs every rank the same, but the ranks hold different"
                    + " numbers of values (rank r has (r + 1) * 1000): add up sums and counts, then divide.";
        } else if (close(answer, globalSum / size)) {
            why = "that is the total divided by the number of ranks: divide by the total number of values instead.";
        } else if (close(answer, globalSum)) {
            why = "that is the sum of all values: divide it by how many values there are in total.";
        } else {
            why = "not the mean of every rank's values: add up every rank's sum and count with one collective, then divide.";
        }
        return Check.wrong(who + fmt(answer) + " is not the global mean", why);
    }

    private static boolean close(double a, double b) {
        return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
    }

    private static String fmt(double x) {
        return String.format(java.util.Locale.ROOT, "%.6f", x);
    }
}
