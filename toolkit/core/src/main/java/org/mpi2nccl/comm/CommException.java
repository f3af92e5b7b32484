package org.mpi2nccl.comm;

/**
 * A communicator failed. The message names the rank that saw the failure and, where known, the collective
 * and the peer. After most failures the communicator is unusable ({@link Communicator#isBroken()}): the
 * rank should report the error and end, so that the launcher takes the whole job down.
 */
public class CommException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CommException(String message) {
        super(message);
    }

    public CommException(String message, Throwable cause) {
        super(message, cause);
    }
}
