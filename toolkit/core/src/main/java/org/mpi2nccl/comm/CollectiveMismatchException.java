package org.mpi2nccl.comm;

/**
 * The ranks did not call the same collective: different operation, element count, type, reduction, root,
 * or sequence number (a rank skipped a call). Found by the metadata check each communicator runs before a
 * collective, so the job fails at once instead of hanging in mismatched transfers.
 */
public class CollectiveMismatchException extends CommException {
    private static final long serialVersionUID = 1L;

    public CollectiveMismatchException(String message) {
        super(message);
    }
}
