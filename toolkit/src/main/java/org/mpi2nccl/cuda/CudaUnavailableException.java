package org.mpi2nccl.cuda;

/**
 * CUDA was asked for but cannot be used here: no driver, no GPU, a missing library. The message says
 * what was found and what to do; {@code mpi2nccl doctor-gpu} prints the whole picture.
 */
public class CudaUnavailableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public CudaUnavailableException(String message) {
        super(message);
    }

    public CudaUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
