package org.mpi2nccl.tensor;

/**
 * A backend whose storage lives in a device's own memory (a GPU's). Code that hands that memory to another library
 * in place (NCCL all-reducing a gradient bucket) needs its address, and views that share it; what the device is does
 * not matter to that code, so it asks for this, not for the CUDA backend itself.
 */
public interface DeviceMemoryBackend extends Backend {
    /**
     * The device address of {@code s}, a storage of this backend. It must stay open while another library uses the
     * address, and that library's work must be ordered with this backend's own ({@link #synchronize()}).
     */
    long deviceAddress(Storage s);

    /** {@code n} elements of {@code parent} from {@code offset}: the same memory, as a storage owning nothing. */
    Storage view(Storage parent, long offset, long n);
}
