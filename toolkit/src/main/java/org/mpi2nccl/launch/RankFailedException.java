package org.mpi2nccl.launch;

import java.util.List;

/** A rank's main threw (or its JVM died): the job was stopped; {@link #failures()} says why per rank. */
public class RankFailedException extends MpjJobException {
    private static final long serialVersionUID = 1L;

    private final transient List<RankFailure> failures;

    public RankFailedException(String message, JobResult result, List<RankFailure> failures) {
        super(message, result, failures.stream().map(RankFailure::rank).toList());
        this.failures = List.copyOf(failures);
    }

    public List<RankFailure> failures() {
        return failures;
    }
}
