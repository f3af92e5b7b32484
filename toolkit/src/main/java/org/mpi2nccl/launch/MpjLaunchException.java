package org.mpi2nccl.launch;

/**
 * A job could not start: bad arguments or a missing piece of the machine (MPJ_HOME not built, no java,
 * a port in use, no daemon). The message is one line: the cause, then what to do.
 */
public class MpjLaunchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MpjLaunchException(String causeAndRemedy) {
        super(causeAndRemedy);
    }

    public MpjLaunchException(String causeAndRemedy, Throwable cause) {
        super(causeAndRemedy, cause);
    }
}
