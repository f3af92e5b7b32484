package org.mpi2nccl.cuda;

/**
 * Where {@link CudaBackend} gets a storage's device memory, and where it goes when the storage is closed: a cache
 * of closed storages' blocks ({@link BlockCache}) in front of the context's stream-ordered pool. A training step's
 * temporaries have the same sizes every step, so they reuse the previous step's blocks without a driver call.
 * <p>While a CUDA graph is recorded ({@link GraphRecording}), blocks freed by the recorded work go to a cache of the
 * recording's own: the graph's replays use them, so nothing else may take them before the recording is closed.
 */
final class StorageBlocks {
    /** Closed storages' blocks kept for reuse: at most this many bytes (a training step's temporaries are far fewer). */
    static final long CACHE_BYTES = 1L << 30;

    private final CudaContext context;
    private final BlockCache<DeviceMemory> blocks = new BlockCache<>(CACHE_BYTES, DeviceMemory::bytes, DeviceMemory::close);
    private volatile BlockCache<DeviceMemory> graphBlocks;     // while a CUDA graph is recorded: the blocks it frees

    StorageBlocks(CudaContext context) {
        this.context = context;
    }

    /**
     * A block of {@code bytes}: from the cache when a closed storage of the same size left one there, else a new
     * block of the context's pool; when the GPU is full, the cache is emptied and the allocation tried again.
     */
    DeviceMemory take(long bytes) {
        BlockCache<DeviceMemory> own = graphBlocks;
        DeviceMemory m = own != null ? own.take(bytes) : null;
        if (m == null) m = blocks.take(bytes);
        if (m != null) return m;
        try {
            return DeviceMemory.allocateUnscoped(context, bytes);
        } catch (CudaException e) {
            if (blocks.cachedBytes() == 0) throw e;
            blocks.clear();
            return DeviceMemory.allocateUnscoped(context, bytes);
        }
    }

    /** A closed storage's block: to the cache (which frees its oldest blocks when full). */
    void give(DeviceMemory block) {
        BlockCache<DeviceMemory> own = graphBlocks;
        (own != null ? own : blocks).give(block);
    }

    void clear() {
        blocks.clear();
    }

    long cachedBytes() {
        return blocks.cachedBytes();
    }

    /** A recording starts: the blocks freed from now on are its own (returned). One recording at a time. */
    synchronized BlockCache<DeviceMemory> startRecording(String device) {
        if (graphBlocks != null) throw new IllegalStateException("a CUDA graph is already being recorded on " + device);
        graphBlocks = new BlockCache<>(Long.MAX_VALUE, DeviceMemory::bytes, DeviceMemory::close);
        return graphBlocks;
    }

    /** The recording that owns {@code own} is over (or failed to start): blocks freed from now on go to the shared cache. */
    synchronized void recordingEnded(BlockCache<DeviceMemory> own) {
        if (graphBlocks == own) graphBlocks = null;
    }
}
