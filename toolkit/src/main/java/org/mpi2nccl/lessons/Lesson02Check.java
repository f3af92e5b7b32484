package org.mpi2nccl.lessons;

import java.time.Duration;
import java.util.function.BiConsumer;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;

/**
 * Lesson 02's two checks: the student's reduce-scatter or whole all-reduce, run on the notebook's ranks and then (on
 * rank 0) on 1, 2, 3 and 4 ranks as threads, for buffers that the ranks divide and buffers they do not. Each run gives
 * the student's code a communicator of its own and a {@link PointToPoint} with a deadline, and the ranks agree after
 * every call, so that a send to the wrong neighbour ends in a message naming the rank that waited and the one it
 * waited for, on every rank, and the next check starts on fresh ranks.
 */
final class Lesson02Check {
    /** How long one Sendrecv waits for its message: far longer than a right step takes on a loaded machine. */
    static final Duration WAIT = Duration.ofSeconds(10);
    /** Rank counts tried as threads on rank 0. */
    static final int[] THREAD_RANKS = {1, 2, 3, 4};

    private Lesson02Check() {
    }

    /** Room for one rank's reason when the ranks share theirs. */
    private static final int REASON_BYTES = 2048;

    /**
     * A wrong answer before it is shown: a Check is made only once the ranks agreed (strict mode throws at once).
     * {@code waited}: a Sendrecv that timed out, most often because its partner had stopped on a mistake of its own.
     */
    private record Wrong(String title, String why, boolean waited) {
        Wrong(String title, String why) {
            this(title, why, false);
        }
    }

    static Check check(Communicator world, BiConsumer<PointToPoint, float[]> student, boolean halfOnly) {
        return check(world, student, halfOnly, WAIT);
    }

    /** {@link #check(Communicator, BiConsumer, boolean)} with the Sendrecv timeout {@code wait}. Collective. */
    static Check check(Communicator world, BiConsumer<PointToPoint, float[]> student, boolean halfOnly, Duration wait) {
        String who = "rank " + world.rank() + ": ";
        Outcome mine = run(world, student, halfOnly, wait, true);
        if (mine.wrong != null) {
            return Check.wrong(who + mine.wrong.title, mine.wrong.why);
        }
        // A grader's run grades the notebook's ranks on the grading's own inputs; the thread ranks are for the hint. An
        // answer that calls MPI's own collective runs on MPI's ranks only: the grader marks it down by its text, and its
        // numbers must still be judged on the ranks it can run on.
        boolean threads = world.rank() == 0 && Grading.seed() == 0;
        if (threads) {
            for (int n : THREAD_RANKS) {
                Check wrong = CheckRanks.onThreadRanks(who, world.size(), n, world, halfOnly ? "reduce-scatter"
                        : "all-reduce", c -> {
                            Outcome o = run(c, student, halfOnly, wait, false);
                            return o.wrong == null ? null : o.wrong.title + ": " + o.wrong.why;
                        });
                if (wrong != null) return wrong;
            }
        }
        int p = world.size(), r = world.rank();
        return Check.right(who + (halfOnly ? "segment " + r + " is the sum over all ranks" : "every element is the sum"
                + " over all ranks"), "for buffers of " + java.util.Arrays.toString(Lesson02.checkLengths(p))
                + " elements, the same as MPI's Allreduce on the same random numbers, after " + (halfOnly ? "" : "2 x ")
                + (p - 1) + " steps around the ring" + (Grading.seed() != 0 ? "." : r == 0 ? "; also on 1 to 4 ranks as"
                + " threads." : "; rank 0 also ran it on 1 to 4 ranks as threads."));
    }

    /** What one run showed: {@code wrong} null when every buffer was right on this rank. */
    private record Outcome(Wrong wrong) {
    }

    /** One run of the student's function on {@code world}'s ranks, on every length of the check. Collective. */
    private static Outcome run(Communicator world, BiConsumer<PointToPoint, float[]> student, boolean halfOnly,
                               Duration wait, boolean graded) {
        int p = world.size();
        int r = world.rank();
        int[] lengths = Lesson02.checkLengths(p);
        // The right answers first, from the communicator's all-reduce, before the student's code runs.
        float[][] expected = new float[lengths.length][];
        for (int k = 0; k < lengths.length; k++) {
            expected[k] = Lesson02.randomInput(r, lengths[k]);
            world.allReduce(HostBuffer.of(expected[k]), Reduction.SUM);
        }
        float[][] got = new float[lengths.length][];
        float[][] labelled = new float[lengths.length][];
        Communicator own = CheckRanks.own(world);
        try {
            PointToPoint ring = PointToPoint.over(own, wait);
            for (int k = 0; k < lengths.length; k++) {
                got[k] = Lesson02.randomInput(r, lengths[k]);
                labelled[k] = Lesson02Diagnosis.labelledInput(r, p, lengths[k]);
                Wrong w = agreed(world, call(student, ring, got[k], lengths[k]));
                if (w == null) w = agreed(world, call(student, ring, labelled[k], lengths[k]));
                if (w != null) return new Outcome(w);
            }
            if (graded && Grading.seed() != 0) { // a grader's run: one more buffer, whose answer the grader computes
                long seed = Grading.seed();
                int n = Lesson02.gradingLength(seed);
                float[] buf = Lesson02.gradingInput(r, n, seed);
                Wrong w = agreed(world, call(student, ring, buf, n));
                if (w != null) return new Outcome(w);
                int from = halfOnly ? Lesson02.segmentStart(n, p, r) : 0;
                int to = halfOnly ? from + Lesson02.segmentLength(n, p, r) : n;
                double[] answer = new double[to - from];
                for (int i = from; i < to; i++) answer[i - from] = buf[i];
                Grading.record(halfOnly ? "reduce-scatter" : "all-gather", answer);
            }
        } finally {
            own.close();
        }
        return new Outcome(compare(p, r, lengths, expected, got, labelled, halfOnly));
    }

    /** The first wrong element of this rank's results, explained; null when every one is right. */
    private static Wrong compare(int p, int r, int[] lengths, float[][] expected, float[][] got, float[][] labelled,
                                 boolean halfOnly) {
        for (int k = 0; k < lengths.length; k++) {
            int n = lengths[k];
            int from = halfOnly ? Lesson02.segmentStart(n, p, r) : 0;
            int to = halfOnly ? from + Lesson02.segmentLength(n, p, r) : n;
            for (int i = from; i < to; i++) {
                if (got[k][i] != expected[k][i]) {
                    String what = halfOnly ? "segment " + r + " (elements " + Lesson02.range(from, to) + ") is not the"
                            + " sum over all " + p + " ranks" : "element " + i + " (segment "
                            + Lesson02Diagnosis.segmentOf(n, p, i) + ") is " + Lesson02.fmt(got[k][i]) + ", not the sum"
                            + " over all " + p + " ranks";
                    return new Wrong("with " + n + " element" + (n == 1 ? "" : "s") + ", " + what,
                            Lesson02Diagnosis.explain(r, p, n, labelled[k], halfOnly, i, got[k][i]));
                }
            }
        }
        int longest = lengths.length - 1;
        for (int k = 0; k < lengths.length; k++) {
            longest = lengths[k] > lengths[longest] ? k : longest;
        }
        if (halfOnly && p > 1 && Lesson02Diagnosis.complete(p, lengths[longest], labelled[longest])) {
            return new Wrong("every segment holds the complete sum", "That is a whole all-reduce (or MPI's"
                    + " Allreduce): right values, but this exercise is the reduce-scatter half, after which rank r holds"
                    + " only segment r complete, having sent (p - 1)/p of the buffer instead of 2(p - 1)/p.");
        }
        return null;
    }

    /**
     * Every rank's outcome of one call, agreed over {@code world} (collective): null when every rank's call returned.
     * Else each rank tells the most telling reason: its own, or the first rank's that went wrong on its own (a
     * mismatch, an exception) rather than by waiting for a partner that had stopped, so that every rank names the
     * first wrong place and none only says that it waited.
     */
    private static Wrong agreed(Communicator world, Wrong mine) {
        int level = mine == null ? 0 : mine.waited ? 1 : 2;
        int[] worst = {level};
        world.allReduce(HostBuffer.of(worst), Reduction.MAX);
        if (worst[0] == 0) return null;
        byte[] own = new byte[REASON_BYTES];
        own[0] = (byte) level;
        if (mine != null) {
            byte[] text = (mine.title + "\n" + mine.why).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            System.arraycopy(text, 0, own, 1, Math.min(text.length, REASON_BYTES - 1));
        }
        byte[] all = new byte[REASON_BYTES * world.size()];
        world.allGather(HostBuffer.of(own), HostBuffer.of(all));
        if (level == worst[0]) return mine;
        for (int q = 0; q < world.size(); q++) {
            if (all[q * REASON_BYTES] == worst[0]) {
                String[] told = new String(all, q * REASON_BYTES + 1, REASON_BYTES - 1,
                        java.nio.charset.StandardCharsets.UTF_8).replace("\0", "").split("\n", 2);
                return new Wrong("rank " + q + " went wrong first: " + told[0], told.length > 1 ? told[1] : "");
            }
        }
        return mine;
    }

    /** Runs the student's function on {@code buf}; what went wrong when it threw, else null. */
    private static Wrong call(BiConsumer<PointToPoint, float[]> student, PointToPoint ring, float[] buf, int n) {
        String with = "with " + n + " element" + (n == 1 ? "" : "s") + ", ";
        try {
            student.accept(ring, buf);
            return null;
        } catch (UnsupportedOperationException e) {
            String m = e.getMessage();
            return new Wrong("not written yet", m == null || m.isEmpty() ? "Write the function above, then run this"
                    + " check again." : Character.toUpperCase(m.charAt(0)) + m.substring(1) + ": replace the line that"
                    + " throws with your code.");
        } catch (IndexOutOfBoundsException e) {
            return new Wrong(with + "an index outside the buffer (" + e.getMessage() + ")", "segment numbers must stay"
                    + " in 0..size-1: Java's % keeps the sign, so (rank - step - 1) % size is negative for small ranks;"
                    + " use Math.floorMod. Take each segment's start and length from start(n, size, j) and"
                    + " length(n, size, j): segments differ in length, and some are empty when the buffer has fewer"
                    + " elements than there are ranks.");
        } catch (PointToPoint.PeerTimeout e) {
            return new Wrong(with + "a Sendrecv whose message never came", e.getMessage() + " Every Sendrecv needs its"
                    + " partner in the same step: each rank sends to right = (rank + 1) % size and receives from"
                    + " left = (rank + size - 1) % size, and every rank makes the same number of steps. The check"
                    + " stopped these ranks; the next run starts on fresh ones, so fix the code and run it again.", true);
        } catch (CommException e) {
            return new Wrong(with + "a Sendrecv failed", e.getMessage());
        } catch (RuntimeException e) {
            return new Wrong("your code threw " + e, "fix the error above, then run the check again.");
        }
    }
}
