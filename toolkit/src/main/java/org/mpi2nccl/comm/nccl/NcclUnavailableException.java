package org.mpi2nccl.comm.nccl;

import org.mpi2nccl.comm.CommException;

/** NCCL cannot be used here: no GPU, no driver, or the NCCL / CUDA runtime libraries were not found. */
public class NcclUnavailableException extends CommException {
    private static final long serialVersionUID = 1L;

    public NcclUnavailableException(String message) {
        super(message);
    }
}
