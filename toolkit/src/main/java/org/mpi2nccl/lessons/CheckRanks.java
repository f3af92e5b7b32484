package org.mpi2nccl.lessons;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.parallel.EquivalenceCheck;

/**
 * What a check that runs a student's collective code on several ranks needs so that one rank's failure never leaves
 * the others waiting: the student's code gets a communicator of its own ({@link #own}), which a failing answer may
 * break without breaking the lesson's; and after each phase the ranks agree on the outcome over the lesson's
 * communicator ({@link #agree}), so that no rank goes on into a collective the others have left.
 */
final class CheckRanks {
    private CheckRanks() {
    }

    /** A communicator of the same ranks for the student's code, split from {@code comm}. Collective. */
    static Communicator own(Communicator comm) {
        return comm.split(0, comm.rank());
    }

    /**
     * {@code check} run on a communicator of its own, split from {@code comm} and closed after (collective): what the
     * student's code breaks there (a timeout, an interrupted call) leaves {@code comm} fit for the next check.
     */
    static <T> T withOwn(Communicator comm, java.util.function.Function<Communicator, T> check) {
        Communicator own = own(comm);
        try {
            return check.apply(own);
        } finally {
            own.close();
        }
    }

    /**
     * Every rank's outcome of one phase, agreed over {@code comm} (collective): null on every rank when every rank's
     * {@code mine} was null; else this rank's own reason, or, on a rank that had none, that another rank failed.
     */
    static String agree(Communicator comm, String mine) {
        int[] failed = {mine == null ? 0 : 1};
        comm.allReduce(HostBuffer.of(failed), Reduction.MAX);
        if (failed[0] == 0) return null;
        return mine != null ? mine : "another rank's answer went wrong here first (its message says how); this rank stopped"
                + " with it rather than wait in a collective the other had left.";
    }

    /**
     * Lets the student's all-reduce thread finish what it was given (at most {@code limit}), then stops it. Before the
     * ranks agree over the lesson's communicator: MPJ Express runs one collective at a time per process, and one the
     * student left in flight (a finish() that does not wait) would otherwise run beside the agreement and hang both.
     */
    static void quiesce(ExecutorService thread, Duration limit) {
        thread.shutdown();
        try {
            thread.awaitTermination(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            thread.shutdownNow();
        }
    }

    /** A run of the student's code on some ranks: {@code wrong} null when right, else its first wrong place. */
    record Outcome(String wrong, float[] params) {
        static Outcome wrong(String why) {
            return new Outcome(why, null);
        }
    }

    /**
     * {@code run} on {@code n} ranks as threads of this JVM, each with a communicator of its own and {@code like}'s
     * timeout: null when every rank was right, else the first wrong rank's reason as a wrong check for {@code who}.
     * Right on the notebook's {@code size} ranks and wrong here is, most often, the cell's {@code rank} and
     * {@code size} used where the communicator's belong: the hint says so.
     */
    static Check onThreadRanks(String who, int size, int n, Communicator like, String what,
                               java.util.function.Function<Communicator, String> run) {
        java.util.List<String> got = org.mpi2nccl.comm.ring.LocalRanks.run(n, b -> b.timeout(like.timeout()), run::apply);
        for (int r = 0; r < n; r++) {
            if (got.get(r) != null) {
                return Check.wrong(who + "right on " + size + " ranks, wrong on " + n + " ranks as threads", what
                        + ", thread rank " + r + " of " + n + ": " + got.get(r) + " Does your code use the communicator"
                        + " it was given (comm.rank(), comm.size()), not the cell's rank and size?");
            }
        }
        return null;
    }

    /**
     * After the student's constructor: null when this rank's model holds rank 0's weights ({@code rank0}, built from
     * rank 0's seed), else what is wrong. Every rank builds its model from a seed of its own, so only a constructor
     * that broadcasts rank 0's parameters passes.
     */
    static String copiesDiffer(Module net, Module rank0) {
        double d = EquivalenceCheck.relativeDifference(EquivalenceCheck.flatParameters(net),
                EquivalenceCheck.flatParameters(rank0));
        return d == 0 ? null : "after the constructor this rank's weights differ from rank 0's by " + Lesson03Diagnosis.fmt(d)
                + ": every rank built its model from its own seed here, so the constructor must broadcast rank 0's"
                + " parameters to every rank.";
    }

    /** The exception the student's code threw, from under the wrappers a thread pool or a lambda put round it. */
    static Throwable thrown(Throwable e) {
        while (e.getCause() != null && (e instanceof ExecutionException || e.getClass() == RuntimeException.class)) {
            e = e.getCause();
        }
        return e;
    }

    /** Runs one phase of the student's code: its verdict (null when right), or what the code threw, in words. */
    static String attempt(Callable<String> phase) {
        try {
            return phase.call();
        } catch (Exception e) {
            return described(e);
        }
    }

    /** What the student's code threw, in words. */
    static String described(Throwable e) {
        Throwable c = thrown(e);
        if (c instanceof UnsupportedOperationException) return "not written yet: " + c.getMessage();
        StackTraceElement at = c.getStackTrace().length > 0 ? c.getStackTrace()[0] : null;
        return "your code threw " + c + (at != null ? " (at " + at + ")" : "") + ".";
    }
}
