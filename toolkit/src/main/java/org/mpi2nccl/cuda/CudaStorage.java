package org.mpi2nccl.cuda;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.Storage;

/** A {@link Storage} in GPU memory: a {@link DeviceMemory} block of {@code size} floats owned by one {@link CudaBackend}. */
final class CudaStorage implements Storage {
    private final CudaBackend backend;
    final DeviceMemory memory;
    private final long size;
    private boolean counted = true;
    private boolean closed;
    private CudaStorage parent;          // a view's storage: closed when it is (its block may be reused then)

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
    public synchronized boolean isClosed() {
        return closed || memory.isClosed() || (parent != null && parent.isClosed());
    }

    /** A view of {@code parent}'s memory: not counted in the backend's live total (its parent is), closed with it. */
    synchronized void viewOf(CudaStorage parent) {
        counted = false;
        this.parent = parent;
    }

    /** An owned block goes back to the backend (its block cache); a view's memory is only marked closed. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        if (counted) {
            counted = false;
            backend.freed(size, memory);
        } else {
            memory.close();
        }
    }

    @Override
    public String toString() {
        return "CudaStorage[" + size + " floats on " + backend.device() + (isClosed() ? ", closed" : "") + "]";
    }
}
