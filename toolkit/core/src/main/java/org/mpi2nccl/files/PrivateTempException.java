package org.mpi2nccl.files;

/** A shared place the toolkit will not use (another user's folder, a link, open permissions), and what to do. */
public final class PrivateTempException extends IllegalStateException {
    public PrivateTempException(String message) {
        super(message);
    }
}
