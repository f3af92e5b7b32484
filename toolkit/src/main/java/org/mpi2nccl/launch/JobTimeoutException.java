package org.mpi2nccl.launch;

import java.time.Duration;
import java.util.List;

/** The job ran past its timeout: every rank was stopped; {@link #ranks()} lists those that had not finished. */
public class JobTimeoutException extends MpjJobException {
    private static final long serialVersionUID = 1L;

    private final Duration timeout;

    public JobTimeoutException(String message, JobResult result, List<Integer> unfinished, Duration timeout) {
        super(message, result, unfinished);
        this.timeout = timeout;
    }

    public Duration timeout() {
        return timeout;
    }
}
