package org.mpi2nccl.cuda;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * Device blocks of closed storages kept for the next allocation of the same size, as PyTorch's caching
 * allocator does: a training step allocates and frees the same few dozen temporaries every step, and each
 * cuMemAllocAsync/cuMemFreeAsync pair (plus its Java bookkeeping) costs the host microseconds that a small
 * model's step cannot hide. Reuse is safe for the same reason the stream-ordered pool's is: every user of a
 * block queues its work on the context's one stream, so the next user's kernels run after the last one's.
 * <p>Bounded ({@link #limitBytes}): a new block makes room by freeing the blocks given longest ago, so blocks
 * of earlier work (a benchmark's large arrays) do not keep a training loop's temporaries out; a block larger
 * than the bound is freed at once. {@link #clear()} frees everything (done before an allocation that the GPU
 * refused, and by {@link CudaBackend#releaseCachedBlocks()}). Generic over the block type so that its rules are
 * tested without a GPU.
 */
final class BlockCache<B> {
    private final Map<Long, ArrayDeque<B>> free = new HashMap<>();
    /** Every cached block, the one given longest ago first (identity: blocks do not override equals). */
    private final LinkedHashSet<B> age = new LinkedHashSet<>();
    private final long limitBytes;
    private final ToLongFunction<B> bytesOf;
    private final Consumer<B> release;
    private long cachedBytes;
    private long hits;

    BlockCache(long limitBytes, ToLongFunction<B> bytesOf, Consumer<B> release) {
        this.limitBytes = limitBytes;
        this.bytesOf = bytesOf;
        this.release = release;
    }

    /** A cached block of exactly {@code bytes}, or null. */
    synchronized B take(long bytes) {
        ArrayDeque<B> q = free.get(bytes);
        if (q == null || q.isEmpty()) return null;
        B b = q.pop();
        age.remove(b);
        cachedBytes -= bytes;
        hits++;
        return b;
    }

    /** Keeps {@code block} for reuse, freeing the oldest cached blocks to make room (or it, when it alone is too big). */
    void give(B block) {
        long bytes = bytesOf.applyAsLong(block);
        List<B> evicted = new ArrayList<>();
        synchronized (this) {
            if (bytes > limitBytes) {
                evicted.add(block);
            } else {
                while (cachedBytes + bytes > limitBytes) {
                    B oldest = age.iterator().next();
                    age.remove(oldest);
                    long ob = bytesOf.applyAsLong(oldest);
                    free.get(ob).remove(oldest);
                    cachedBytes -= ob;
                    evicted.add(oldest);
                }
                free.computeIfAbsent(bytes, b -> new ArrayDeque<>()).push(block);
                age.add(block);
                cachedBytes += bytes;
            }
        }
        evicted.forEach(release);
    }

    /** Frees every cached block (after the work queued so far). */
    void clear() {
        List<B> all;
        synchronized (this) {
            all = new ArrayList<>(age);
            free.clear();
            age.clear();
            cachedBytes = 0;
        }
        all.forEach(release);
    }

    synchronized long cachedBytes() {
        return cachedBytes;
    }

    synchronized long hits() {
        return hits;
    }
}
