package org.mpi2nccl.comm;

/**
 * What host and device buffers share: the element type, slicing within bounds, and overlap and identity as byte
 * ranges within one memory space (a Java array, or one GPU's address space).
 */
abstract sealed class BufferView implements CommBuffer permits HostBuffer, DeviceBuffer {
    protected final DataType type;

    BufferView(DataType type) {
        this.type = type;
    }

    @Override
    public final DataType dataType() {
        return type;
    }

    /** Where element 0 is within its memory space, in bytes. */
    abstract long startByte();

    /** Whether {@code other} lives in the same memory space (the same Java array; the same GPU). */
    abstract boolean sameSpace(BufferView other);

    /** {@code [offset, offset + count)} must lie within this buffer; {@code what} names the buffer in the error. */
    final void checkSlice(long offset, long count, String what) {
        if (offset < 0 || count < 0 || offset + count > count()) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", " + (offset + count) + ") of " + what + " of "
                    + count() + " elements");
        }
    }

    @Override
    public final boolean overlaps(CommBuffer other) {
        return other instanceof BufferView b && b.onDevice() == onDevice() && sameSpace(b) && count() > 0 && b.count() > 0
                && b.startByte() < startByte() + bytes() && startByte() < b.startByte() + b.bytes();
    }

    @Override
    public final boolean sameAs(CommBuffer other) {
        return other instanceof BufferView b && b.onDevice() == onDevice() && sameSpace(b) && b.startByte() == startByte()
                && b.type == type && b.count() == count();
    }
}
