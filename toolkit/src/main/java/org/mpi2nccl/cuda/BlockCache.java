package org.mpi2nccl.cuda;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Device blocks of closed storages kept for the next allocation of the same size, as PyTorch's caching
 * allocator does: a training step allocates and frees the same few dozen temporaries every step, and each
 * cuMemAllocAsync/cuMemFreeAsync pair (plus its Java bookkeeping) costs the host microseconds that a small
 * model's step cannot hide. Reuse is safe for the same reason the stream-ordered pool's is: every user of a
 * block queues its work on the context's one stream, so the next user's kernels run after the last one's.
 * <p>Bounded ({@link #limitBytes}): a block that would exceed it is freed at once. {@link #clear()} frees
 * everything (done before an allocation that the GPU refused, and by {@link CudaBackend#releaseCachedBlocks()}).
 */
final class BlockCache {
    private final Map<Long, ArrayDeque<DeviceMemory>> free = new HashMap<>();
    private final long limitBytes;
    private long cachedBytes;
    private long hits;

    BlockCache(long limitBytes) {
        this.limitBytes = limitBytes;
    }

    /** A cached block of exactly {@code bytes}, or null. */
    synchronized DeviceMemory take(long bytes) {
        ArrayDeque<DeviceMemory> q = free.get(bytes);
        if (q == null || q.isEmpty()) return null;
        cachedBytes -= bytes;
        hits++;
        return q.pop();
    }

    /** Keeps {@code block} for reuse, or frees it when the cache is full. */
    void give(DeviceMemory block) {
        synchronized (this) {
            if (cachedBytes + block.bytes() <= limitBytes) {
                free.computeIfAbsent(block.bytes(), b -> new ArrayDeque<>()).push(block);
                cachedBytes += block.bytes();
                return;
            }
        }
        block.close();
    }

    /** Frees every cached block (after the work queued so far). */
    void clear() {
        ArrayDeque<DeviceMemory> all = new ArrayDeque<>();
        synchronized (this) {
            for (ArrayDeque<DeviceMemory> q : free.values()) all.addAll(q);
            free.clear();
            cachedBytes = 0;
        }
        for (DeviceMemory m : all) m.close();
    }

    synchronized long cachedBytes() {
        return cachedBytes;
    }

    synchronized long hits() {
        return hits;
    }
}
