package org.mpi2nccl.launch;

import java.util.List;

/**
 * A job started and did not end well. Carries what the job produced up to then ({@link #result()}) and the
 * ranks at fault ({@link #ranks()}). Every rank JVM and daemon of the job has been stopped when this is thrown.
 */
public class MpjJobException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient JobResult result;
    private final List<Integer> ranks;

    public MpjJobException(String message, JobResult result, List<Integer> ranks) {
        super(message);
        this.result = result;
        this.ranks = List.copyOf(ranks);
    }

    /** Lines, reports and rank statuses collected until the job was stopped. */
    public JobResult result() {
        return result;
    }

    /** The ranks the message is about (failed ones, or unfinished ones at a timeout). */
    public List<Integer> ranks() {
        return ranks;
    }
}
