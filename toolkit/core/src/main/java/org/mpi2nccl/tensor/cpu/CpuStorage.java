package org.mpi2nccl.tensor.cpu;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.Storage;

/** CPU storage: a heap float array. Closing it hands the array back to the backend's pool and marks the storage closed. */
final class CpuStorage implements Storage {
    private final CpuBackend backend;
    private float[] data;
    private final long size;

    CpuStorage(CpuBackend backend, float[] data) {
        this.backend = backend;
        this.data = data;
        this.size = data.length;
    }

    /** The elements, for the CPU backend's own kernels only. */
    float[] data() {
        float[] d = data;
        if (d == null) throw new IllegalStateException("CPU storage of " + size + " elements used after close()");
        return d;
    }

    @Override
    public Backend backend() { return backend; }

    @Override
    public long size() { return size; }

    @Override
    public boolean isClosed() { return data == null; }

    @Override
    public synchronized void close() {
        if (data == null) return;
        float[] d = data;
        data = null;
        backend.freed(d);
    }
}
