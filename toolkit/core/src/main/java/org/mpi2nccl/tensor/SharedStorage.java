package org.mpi2nccl.tensor;

/** A storage plus the number of {@link NDArray} views still using it; the last one to close frees it. */
final class SharedStorage {
    final Storage storage;
    private int refs;

    SharedStorage(Storage storage) { this.storage = storage; }

    synchronized void retain() {
        if (storage.isClosed()) throw new IllegalStateException("storage already freed");
        refs++;
    }

    synchronized void release() {
        if (--refs == 0) storage.close();
    }
}
