package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Storage;

/** Views of GPU memory (what data-parallel gradient buckets hand out): shared contents, no ownership. */
@Tag("gpu")
class DeviceMemoryViewTest {
    private static CudaBackend gpu;

    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
        gpu = CudaBackend.open(0);
    }

    @Test
    void aViewSharesItsParentsMemoryAndOwnsNothing() {
        Storage parent = gpu.allocate(10);
        gpu.copyFromHost(new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 0, parent, 0, 10);
        try (NDArray v = NDArray.onStorage(gpu.view(parent, 4, 6), 2, 3)) {
            assertArrayEquals(new float[] {4, 5, 6, 7, 8, 9}, v.toArray());
            v.addInPlace(NDArray.ones(Device.cuda(0), 2, 3));            // kernels write through the view
            float[] all = new float[10];
            gpu.copyToHost(parent, 0, all, 0, 10);
            assertArrayEquals(new float[] {0, 1, 2, 3, 5, 6, 7, 8, 9, 10}, all);
        }
        // the view closed, the parent still holds its data
        float[] first = new float[1];
        gpu.copyToHost(parent, 9, first, 0, 1);
        assertEquals(10f, first[0]);
        Storage v2 = gpu.view(parent, 0, 2);
        parent.close();
        assertTrue(v2.isClosed(), "a view of a closed block is closed too");
        assertThrows(IllegalArgumentException.class, () -> gpu.view(gpu.allocate(4), 2, 3));
    }

    @Test
    void viewsAreNotCountedAsMemoryOfTheirOwn() {
        long before = gpu.context().memoryStats().liveBytes();
        try (DeviceMemory m = DeviceMemory.allocateUnscoped(gpu.context(), 4096)) {
            DeviceMemory v = m.view(1024, 1024);
            assertEquals(before + 4096, gpu.context().memoryStats().liveBytes());
            v.close();
            assertTrue(v.isClosed());
            assertFalse(m.isClosed(), "closing a view must not free its block");
        }
    }
}
