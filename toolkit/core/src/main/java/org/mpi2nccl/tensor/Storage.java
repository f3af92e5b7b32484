package org.mpi2nccl.tensor;

/**
 * A flat buffer of float32 elements owned by one {@link Backend}: a heap {@code float[]} on the CPU, device
 * memory on a GPU. Only its backend reads or writes it; everyone else goes through the backend's explicit
 * copies ({@link Backend#copyFromHost}, {@link Backend#copyToHost}), so the same code runs on every device.
 *
 * <p>{@link #close()} frees the memory (trivial on the CPU, {@code cuMemFree} or a pool return on a GPU) and
 * must be idempotent. Using a closed storage is a bug the backend reports with an {@link IllegalStateException}.
 * {@link NDArray} counts the views sharing one storage and closes it when the last one is closed.
 */
public interface Storage extends AutoCloseable {

    /** The backend that allocated this storage and is the only one allowed to touch its elements. */
    Backend backend();

    /** Capacity in float32 elements. */
    long size();

    boolean isClosed();

    /** Frees the memory; idempotent; never throws a checked exception. */
    @Override
    void close();
}
