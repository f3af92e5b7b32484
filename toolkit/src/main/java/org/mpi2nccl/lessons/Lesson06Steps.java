package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.launch.StallReports;
import org.mpi2nccl.lessons.RankCountCheck.Verdict;

/**
 * Lesson 06's uneven shards: the ranks hold different numbers of batches, and the student's function of an
 * {@link MpiComm} must give every rank the same number of steps, none past its own data (the smallest count, agreed
 * with one collective). The check runs it on the notebook's ranks ({@link #batchesOn}) and on 1 to 4 ranks as threads
 * with other counts ({@link #checkBatches}), and explains the usual wrong numbers.
 */
final class Lesson06Steps {
    /**
     * The batch counts of the thread ranks, by rank count: the smallest on another rank than in the notebook, never
     * the notebook's 4, and totals that no rank count divides, so that no average, rounded either way, is the
     * smallest count.
     */
    private static final int[][] CHECK_BATCHES = {{6}, {8, 5}, {7, 10, 3}, {9, 6, 11, 5}};

    private Lesson06Steps() {
    }

    /**
     * How many batches rank {@code rank} holds in the notebook: the shards differ, rank 0 has five more than the others
     * (so that no average, rounded either way, happens to equal the smallest count on 2, 3 or 4 ranks).
     */
    static int batchesOn(int rank) {
        return rank == 0 ? 9 : 4;
    }

    /** Rank {@code rank}'s batches when the check runs the function on {@code ranks} thread ranks. */
    static int checkBatches(int rank, int ranks) {
        return CHECK_BATCHES[ranks - 1][rank];
    }

    /** {@link Lesson06#checkSteps(Lesson06.Steps)} on {@code world}'s ranks. Collective. */
    static Check check(Communicator world, Lesson06.Steps student) {
        int size = world.size();
        int[] notebook = new int[size];
        for (int r = 0; r < size; r++) notebook[r] = batchesOn(r);
        return RankCountCheck.check(world, (rank, p) -> task(student, rank, notebook),
                (rank, p) -> task(student, rank, CHECK_BATCHES[p - 1]), "Does your function use only what it is given:"
                        + " comm (comm.Rank(), comm.Size()) and myBatches, not the cell's rank and size or the lesson's"
                        + " counts?");
    }

    private static RankCountCheck.Task task(Lesson06.Steps student, int rank, int[] batches) {
        return new RankCountCheck.Task() {
            @Override
            public double answer(MpiComm comm) {
                return student.of(comm, batches[rank]);
            }

            @Override
            public Verdict verdict(double[] answers) {
                int[] steps = new int[answers.length];
                for (int r = 0; r < steps.length; r++) steps[r] = (int) answers[r];
                return Lesson06Steps.verdict(rank, steps, batches);
            }
        };
    }

    /** The verdict for rank {@code rank}, given the steps every rank plans and the batches every rank holds. */
    static Verdict verdict(int rank, int[] stepsByRank, int[] batchesByRank) {
        int steps = stepsByRank[rank], min = Integer.MAX_VALUE, max = 0;
        boolean agreed = true;
        for (int r = 0; r < stepsByRank.length; r++) {
            min = Math.min(min, batchesByRank[r]);
            max = Math.max(max, batchesByRank[r]);
            agreed &= stepsByRank[r] == steps;
        }
        String title = String.format(Locale.ROOT, "rank %d: %d steps", rank, steps);
        if (agreed && steps == min) {
            return Verdict.right(title, "every rank takes " + min + " steps, each with one all-reduce: the collectives"
                    + " pair up (the extra batches of the ranks with more wait for the next epoch, as a DROP tail policy"
                    + " does).");
        }
        int own = batchesByRank[rank];
        String why;
        if (agreed) {
            why = steps == max ? "every rank agrees on the largest count: the ranks with fewer batches run out of data."
                    : steps > min ? "every rank agrees on " + steps + ", but some rank holds fewer batches and runs out of"
                            + " data: an average is not safe, the smallest count is (MPI.MIN)."
                    : "every rank agrees on " + steps + ", fewer batches than any rank holds: data is skipped for nothing.";
        } else if (steps == own && steps != min) {
            why = "that is this rank's own batch count: rank " + rank + " would call a " + steps + "th all-reduce that no"
                    + " other rank answers, and wait for ever (here: until the timeout, like the 'skip' run above).";
        } else if (steps == own) {
            why = "safe on this rank by luck: it is this rank's own count, and " + plans(stepsByRank) + ". Agree on one"
                    + " number over all ranks with a collective.";
        } else if (steps == max) {
            why = "the largest count: the ranks with fewer batches would run out of data while the others wait.";
        } else {
            why = "the ranks plan different numbers (" + plans(stepsByRank) + "): they must agree on the smallest count"
                    + " (Allreduce with MPI.MIN).";
        }
        return Verdict.wrong(title + " is not safe", why);
    }

    /** "rank 0 plans 9, ranks 1 and 2 plan 4". */
    private static String plans(int[] stepsByRank) {
        java.util.Map<Integer, List<Integer>> byCount = new java.util.TreeMap<>(java.util.Comparator.reverseOrder());
        for (int r = 0; r < stepsByRank.length; r++) byCount.computeIfAbsent(stepsByRank[r], k -> new ArrayList<>()).add(r);
        List<String> parts = new ArrayList<>();
        byCount.forEach((n, ranks) -> parts.add(StallReports.label(ranks) + (ranks.size() == 1 ? " plans " : " plan ") + n));
        return String.join(", ", parts);
    }
}
