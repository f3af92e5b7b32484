package org.mpi2nccl.comm;

import java.time.Duration;

/**
 * A collective did not finish within the communicator's timeout: a peer died, hangs, or skipped the call.
 * The communicator was aborted (for NCCL: {@code ncclCommAbort}) and cannot be used again.
 */
public class CollectiveTimeoutException extends CommException {
    private static final long serialVersionUID = 1L;
    private final transient CollectiveCall call;
    private final Duration timeout;

    public CollectiveTimeoutException(int rank, CollectiveCall call, Duration timeout, String waitingFor) {
        this(rank, call, call.describe(), timeout, waitingFor);
    }

    /** For steps that are not numbered collectives (communicator init, finalize): {@code operation} names it. */
    public CollectiveTimeoutException(int rank, String operation, Duration timeout, String waitingFor) {
        this(rank, null, operation, timeout, waitingFor);
    }

    private CollectiveTimeoutException(int rank, CollectiveCall call, String operation, Duration timeout, String waitingFor) {
        super("rank " + rank + ": " + operation + " did not finish within " + Durations.format(timeout)
                + (waitingFor == null || waitingFor.isEmpty() ? "" : " (still waiting for " + waitingFor + ")")
                + ": a peer rank died, hangs, or skipped this call. The communicator was aborted;"
                + " end this rank and look at the other ranks' output.");
        this.call = call;
        this.timeout = timeout;
    }

    /** The call that timed out (null for init and finalize). */
    public CollectiveCall call() {
        return call;
    }

    public Duration timeout() {
        return timeout;
    }
}
