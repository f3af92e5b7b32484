package org.mpi2nccl.tensor.cpu;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Reuses the float arrays of closed storages. A training step allocates and frees the same large activation
 * and gradient arrays every time (ArrayScope closes them deterministically); handing them back instead of
 * allocating new ones saves the zeroing of fresh arrays and the garbage collector's work on multi-megabyte
 * ("humongous") objects. Arrays are matched by exact length; small ones are not pooled; the pool keeps at
 * most a quarter of the maximum heap and forgets what does not fit.
 */
final class ArrayPool {
    private static final int MIN_POOLED = 1 << 12;

    private final Map<Integer, ArrayDeque<float[]>> free = new HashMap<>();
    private final long capacityElements = Runtime.getRuntime().maxMemory() / 4 / Float.BYTES;
    private long pooledElements;

    synchronized float[] take(int n) {
        if (n >= MIN_POOLED) {
            ArrayDeque<float[]> q = free.get(n);
            if (q != null && !q.isEmpty()) {
                pooledElements -= n;
                return q.pop();
            }
        }
        return new float[n];
    }

    synchronized void give(float[] a) {
        int n = a.length;
        if (n < MIN_POOLED) return;
        if (pooledElements + n > capacityElements) {
            free.clear(); // keep the pool's memory bounded: start over with the arrays now in use
            pooledElements = 0;
        }
        free.computeIfAbsent(n, k -> new ArrayDeque<>()).push(a);
        pooledElements += n;
    }

    synchronized long pooledElements() { return pooledElements; }
}
