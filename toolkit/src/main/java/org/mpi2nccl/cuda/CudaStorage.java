package org.mpi2nccl.cuda;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.Storage;

/** A {@link Storage} in GPU memory: a {@link DeviceMemory} block of {@code size} floats owned by one {@link CudaBackend}. */
final class CudaStorage implements Storage {
    private final CudaBackend backend;
    final DeviceMemory memory;
    private final long size;
    private boolean counted = true;

    CudaStorage(CudaBackend backend, DeviceMemory memory, long size) {
        this.backend = backend;
        this.memory = memory;
        this.size = size;
    }

    @Override
    public Backend backend() {
        return backend;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public boolean isClosed() {
        return memory.isClosed();
    }

    /** A view of another storage's memory: not counted in the backend's live total (its parent is). */
    synchronized void uncounted() {
        counted = false;
    }

    @Override
    public synchronized void close() {
        if (counted) {
            counted = false;
            backend.freed(size);
        }
        memory.close();
    }

    @Override
    public String toString() {
        return "CudaStorage[" + size + " floats on " + backend.device() + (isClosed() ? ", closed" : "") + "]";
    }
}
