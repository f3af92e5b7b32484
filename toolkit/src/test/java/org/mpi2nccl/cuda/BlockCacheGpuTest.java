package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.Storage;

/**
 * The CUDA backend's block cache: a closed storage's block serves the next allocation of its size without a
 * driver call, a view of a closed storage is closed (its block may belong to someone else now), and the cache
 * can be emptied.
 */
@Tag("gpu")
class BlockCacheGpuTest {
    @Test
    void aClosedStoragesBlockIsReusedWithoutADriverCall() {
        GpuTests.requireGpu();
        CudaBackend gpu = CudaBackend.open(0);
        int n = 12345;
        Storage first = gpu.allocate(n);
        long address = gpu.deviceAddress(first);
        first.close();
        long driverAllocations = gpu.context().workCounts().allocations();
        Storage second = gpu.allocate(n);
        assertEquals(address, gpu.deviceAddress(second), "the same block again");
        assertEquals(driverAllocations, gpu.context().workCounts().allocations(), "no driver allocation for a cached size");
        float[] data = new float[n];
        for (int i = 0; i < n; i++) data[i] = i;
        gpu.copyFromHost(data, 0, second, 0, n);
        float[] back = new float[n];
        gpu.copyToHost(second, 0, back, 0, n);
        assertArrayEquals(data, back);
        Storage other = gpu.allocate(n + 1);
        assertNotEquals(address, gpu.deviceAddress(other), "another size is another block");
        other.close();

        Storage view = gpu.view(second, 10, 5);
        second.close();
        assertTrue(view.isClosed(), "a view of a closed storage is closed");
        assertThrows(IllegalStateException.class, () -> gpu.copyToHost(view, 0, new float[5], 0, 5));
        assertTrue(gpu.cachedBytes() >= 4L * n, "the closed blocks are cached: " + gpu.cachedBytes());
        gpu.releaseCachedBlocks();
        assertEquals(0, gpu.cachedBytes());
        System.out.println("block cache: reuse without a driver call, views closed with their storage, cache emptied");
    }
}
