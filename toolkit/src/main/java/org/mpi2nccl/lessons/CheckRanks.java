package org.mpi2nccl.lessons;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;

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

    /** Runs one phase of the student's code: its verdict (null when right), or what the code threw, in words. */
    static String attempt(Callable<String> phase) {
        try {
            return phase.call();
        } catch (Exception e) {
            Throwable c = e;
            while (c.getCause() != null && (c instanceof ExecutionException || c.getClass() == RuntimeException.class)) {
                c = c.getCause();
            }
            if (c instanceof UnsupportedOperationException) return "not written yet: " + c.getMessage();
            StackTraceElement at = c.getStackTrace().length > 0 ? c.getStackTrace()[0] : null;
            return "your code threw " + c + (at != null ? " (at " + at + ")" : "") + ".";
        }
    }
}
