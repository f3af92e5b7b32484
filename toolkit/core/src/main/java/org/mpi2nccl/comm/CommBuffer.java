package org.mpi2nccl.comm;

/**
 * A contiguous run of elements of one {@link DataType}, in host memory ({@link HostBuffer}: a slice of a
 * Java array) or in GPU memory ({@link DeviceBuffer}: a device address). Communicators read and write
 * buffers; they never own them.
 */
public sealed interface CommBuffer permits BufferView {
    DataType dataType();

    /** Number of elements. */
    long count();

    default long bytes() {
        return count() * dataType().bytes();
    }

    /** True for GPU memory. */
    boolean onDevice();

    /** Elements {@code [offset, offset + count)} of this buffer, sharing its memory. */
    CommBuffer slice(long offset, long count);

    /** True when the two buffers share at least one byte of memory. */
    boolean overlaps(CommBuffer other);

    /** True when both start at the same memory and have the same type and length. */
    boolean sameAs(CommBuffer other);
}
