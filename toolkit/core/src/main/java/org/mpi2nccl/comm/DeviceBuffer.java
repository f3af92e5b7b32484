package org.mpi2nccl.comm;

/**
 * A run of elements in GPU memory: a device address on one CUDA device. This is a view: whoever allocated
 * the memory (a CUDA tensor, a {@code DeviceMemory}) owns and frees it and must keep it alive while a
 * communicator uses the view.
 */
public final class DeviceBuffer extends BufferView {
    private final long address;
    private final long count;
    private final int device;

    private DeviceBuffer(long address, long count, DataType type, int device) {
        super(type);
        if (address == 0 && count > 0) {
            throw new IllegalArgumentException("device address is 0 (freed or never allocated memory)");
        }
        if (count < 0) {
            throw new IllegalArgumentException("negative element count " + count);
        }
        if (device < 0) {
            throw new IllegalArgumentException("negative CUDA device ordinal " + device);
        }
        this.address = address;
        this.count = count;
        this.device = device;
    }

    /** A view of {@code count} elements of {@code type} at {@code address} on CUDA device {@code device}. */
    public static DeviceBuffer wrap(long address, long count, DataType type, int device) {
        return new DeviceBuffer(address, count, type, device);
    }

    public long address() {
        return address;
    }

    /** CUDA device ordinal. */
    public int device() {
        return device;
    }

    @Override
    public long count() {
        return count;
    }

    @Override
    public boolean onDevice() {
        return true;
    }

    @Override
    public DeviceBuffer slice(long offset, long count) {
        checkSlice(offset, count, "a device buffer");
        return new DeviceBuffer(address + offset * type.bytes(), count, type, device);
    }

    @Override
    long startByte() {
        return address;
    }

    @Override
    boolean sameSpace(BufferView other) {
        return other instanceof DeviceBuffer d && d.device == device;
    }

    @Override
    public String toString() {
        return "DeviceBuffer[" + count + " x " + type.label() + " on cuda:" + device
                + " at 0x" + Long.toHexString(address) + "]";
    }
}
