package org.mpi2nccl.lessons;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.launch.StallReports;

/**
 * The check of an exercise whose answer is one number per rank, computed by the student's function of an
 * {@link MpiComm} (lesson 01's global mean, lesson 06's number of steps): run on the notebook's ranks, then, on rank 0,
 * on 1, 2, 3 and 4 ranks as threads with other data, so that an answer right only at the notebook's rank count (or
 * only for the lesson's own numbers) is told where it goes wrong. Each run gives the student's code a communicator of
 * its own, and the ranks agree after it, so that a failing answer neither leaves a rank waiting nor breaks the next
 * run; rank 0's finding on the threads reaches every rank of the notebook.
 */
final class RankCountCheck {
    /**
     * How long one collective of the student's waits for the other ranks: far longer than a right call takes. The
     * thread ranks' own collectives wait three times as long, so that the ranks a failing call left still meet there.
     */
    static final Duration WAIT = Duration.ofSeconds(10);
    /** Rank counts tried as threads on rank 0. */
    static final int[] THREAD_RANKS = {1, 2, 3, 4};

    /** The first character of a shared error: the student's code went wrong by itself, or timed out waiting. */
    private static final char FIRST = '2', WAITED = '1';

    private RankCountCheck() {
    }

    /** A verdict before it is shown: a wrong {@link Check} throws in strict mode, so one is made only at the end. */
    record Verdict(boolean right, String title, String why) {
        static Verdict right(String title, String why) {
            return new Verdict(true, title, why);
        }

        static Verdict wrong(String title, String why) {
            return new Verdict(false, title, why);
        }

        Check toCheck() {
            return right ? Check.right(title, why) : Check.wrong(title, why);
        }
    }

    /** One rank's part of a run: the student's answer from its communicator, and the verdict on every rank's answers. */
    interface Task {
        double answer(MpiComm comm);

        Verdict verdict(double[] answers);
    }

    /** The task of rank {@code rank} in a run on {@code size} ranks. */
    interface Tasks {
        Task of(int rank, int size);
    }

    /**
     * The check on {@code world}'s ranks with {@code notebook}'s tasks, then on thread ranks with {@code threads}'
     * (on rank 0, unless {@code world} is itself made of threads of a test); {@code fixes}: what to look at when the
     * answer is right on the notebook's ranks only. Collective.
     */
    static Check check(Communicator world, Tasks notebook, Tasks threads, String fixes) {
        return check(world, notebook, threads, fixes, WAIT);
    }

    /** {@link #check(Communicator, Tasks, Tasks, String)} whose student's calls wait at most {@code wait}. */
    static Check check(Communicator world, Tasks notebook, Tasks threads, String fixes, Duration wait) {
        int r = world.rank(), p = world.size();
        Verdict mine = run(world, notebook, wait);
        int[] wrong = {mine.right() ? 0 : 1};
        world.allReduce(HostBuffer.of(wrong), Reduction.MAX);
        if (wrong[0] == 1) {
            return mine.right() ? Check.wrong("rank " + r + ": right here, not on every rank", "another rank's answer"
                    + " is not right yet: its message says how.") : mine.toCheck();
        }
        String found = r == 0 ? onThreads(p, threads, fixes, wait) : null;
        found = fromRankZero(world, found);
        if (found != null) {
            String[] parts = found.split("\n", 2);
            return Check.wrong("rank " + r + ": " + parts[0], (r == 0 ? "" : "rank 0 ran your function on thread ranks: ")
                    + parts[1]);
        }
        return Check.right(mine.title(), mine.why() + " Also right on 1, 2, 3 and 4 ranks as threads, with other data.");
    }

    /** The first thread run that goes wrong, as its title and explanation on two lines; null when every one is right. */
    static String onThreads(int size, Tasks threads, String fixes, Duration wait) {
        for (int n : THREAD_RANKS) {
            List<Verdict> got = LocalRanks.run(n, b -> b.timeout(wait.multipliedBy(3)), c -> run(c, threads, wait));
            for (int q = 0; q < n; q++) {
                Verdict v = got.get(q);
                if (!v.right()) {
                    return "right on " + size + " rank" + (size == 1 ? "" : "s") + ", wrong on " + n + " rank"
                            + (n == 1 ? "" : "s") + " as threads\nthread rank " + q + " of " + n + ": "
                            + v.title().replaceFirst("^rank \\d+: ", "") + ": "
                            + v.why() + " " + fixes;
                }
            }
        }
        return null;
    }

    /**
     * One run of the student's function on {@code world}'s ranks, on a communicator of its own: this rank's verdict.
     * Collective: every rank learns what every other rank answered, or that its code threw, and why.
     */
    static Verdict run(Communicator world, Tasks tasks, Duration wait) {
        int r = world.rank(), p = world.size();
        Task task = tasks.of(r, p);
        double[] answer = {Double.NaN};
        String error = null;
        int calls;
        Communicator own = CheckRanks.own(world);
        try {
            MpiComm comm = MpiComm.over(own, wait);
            try {
                answer[0] = task.answer(comm);
            } catch (RuntimeException | StackOverflowError | AssertionError e) {
                // a call that timed out most often waited for a rank that had stopped on a mistake of its own
                error = (CheckRanks.thrown(e) instanceof CollectiveTimeoutException ? WAITED : FIRST)
                        + CheckRanks.described(e);
            }
            calls = comm.calls();
        } finally {
            own.close();
        }
        String[] errors = shared(world, error);
        double[] mine = {answer[0], calls}, all = new double[2 * p];
        world.allGather(HostBuffer.of(mine), HostBuffer.of(all));
        String who = "rank " + r;
        int first = -1;
        for (int q = 0; q < p && first < 0; q++) if (errors[q] != null && errors[q].charAt(0) == FIRST) first = q;
        for (int q = 0; q < p && first < 0; q++) if (errors[q] != null) first = q;
        if (first >= 0) {
            boolean mineFirst = error != null && error.charAt(0) == errors[first].charAt(0);
            return Verdict.wrong(who + ": your function stopped", mineFirst ? error.substring(1)
                    : "on rank " + first + ", first: " + errors[first].substring(1));
        }
        double[] answers = new double[p];
        List<Integer> silent = new ArrayList<>();
        for (int q = 0; q < p; q++) {
            answers[q] = all[2 * q];
            if (all[2 * q + 1] == 0) silent.add(q);
        }
        Verdict v = task.verdict(answers);
        if (v.right() && p > 1 && !silent.isEmpty()) {
            return Verdict.wrong(who + ": right numbers, but not from comm", "your function made no call on comm, the"
                    + " communicator it was given, on " + StallReports.label(silent) + ": call comm.Allreduce(...), not"
                    + " MPI.COMM_WORLD's. The check also runs your function on ranks that only comm reaches.");
        }
        return v;
    }

    /** Every rank's text (null where a rank had none), over {@code comm}. Collective. */
    static String[] shared(Communicator comm, String mine) {
        byte[] text = mine == null ? new byte[0] : mine.getBytes(StandardCharsets.UTF_8);
        int p = comm.size();
        int[] lengths = new int[p];
        comm.allGather(HostBuffer.of(new int[] {mine == null ? -1 : text.length}), HostBuffer.of(lengths));
        int longest = 1;
        for (int n : lengths) longest = Math.max(longest, n);
        byte[] padded = java.util.Arrays.copyOf(text, longest), all = new byte[longest * p];
        comm.allGather(HostBuffer.of(padded), HostBuffer.of(all));
        String[] out = new String[p];
        for (int q = 0; q < p; q++) {
            if (lengths[q] >= 0) out[q] = new String(all, q * longest, lengths[q], StandardCharsets.UTF_8);
        }
        return out;
    }

    /** Rank 0's text (or null) on every rank of {@code comm}: the other ranks wait here while rank 0 runs threads. */
    static String fromRankZero(Communicator comm, String mine) {
        return shared(comm, comm.rank() == 0 ? mine : null)[0];
    }
}
