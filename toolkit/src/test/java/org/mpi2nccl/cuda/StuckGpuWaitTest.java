package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuStreamWaitValue32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstreamWaitValue_flags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A GPU stuck behind work that never ends (here the toolkit's stream waits for a flag no one sets, as it waits behind
 * an NCCL kernel whose peer stopped): waiting for it ends at its limit with the GPU and the wait named, not never;
 * once the flag is set from another stream the same GPU runs on.
 */
@Tag("gpu")
class StuckGpuWaitTest {
    @Test
    void aWaitForAStuckStreamEndsAtItsLimitAndTheGpuRunsOnOnceFreed() {
        GpuTests.requireGpu();
        CudaContext ctx = Cuda.device(0).context();
        ctx.makeCurrent();
        Pointer host = new Pointer();     // a flag in pinned host memory the GPU reads: the host frees the stream
        CudaException.check(cuMemHostAlloc(host, 4, CU_MEMHOSTALLOC_DEVICEMAP), "cuMemHostAlloc");
        ByteBuffer flag = host.getByteBuffer(0, 4).order(ByteOrder.nativeOrder());
        flag.putInt(0, 0);
        CUdeviceptr flagOnGpu = new CUdeviceptr();
        CudaException.check(cuMemHostGetDevicePointer(flagOnGpu, host, 0), "cuMemHostGetDevicePointer");
        try (DeviceMemory data = ctx.allocateFloats(4)) {
            data.copyFrom(new float[] {1, 2, 3, 4});
            ctx.synchronize();
            CudaException.check(cuStreamWaitValue32(ctx.stream(), flagOnGpu, 1,
                    CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ), "cuStreamWaitValue32");
            // a free that would wait for the whole GPU (cuMemFreeHost) waits bounded first, then not at all
            long t0 = System.nanoTime();
            CudaException idle = assertThrows(CudaException.class, () -> ctx.awaitIdle("a test's free", Duration.ofSeconds(2)));
            assertTrue(idle.getMessage().contains("did not finish the work queued before a test's free within 2 s"), idle.getMessage());
            long t1 = System.nanoTime();
            assertFalse(ctx.awaitIdle("a second free"), "a GPU that ran out of time is not waited for again");
            double again = (System.nanoTime() - t1) / 1e9;
            assertTrue((t1 - t0) / 1e9 >= 2 && again < 0.5, "waited " + (t1 - t0) / 1e9 + " s, then " + again + " s");
            // a wait for the stream itself still waits its own limit, and names itself
            t0 = System.nanoTime();
            CudaException e = assertThrows(CudaException.class, () -> ctx.synchronize(Duration.ofSeconds(2)));
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("a stuck stream: the wait ended after %.2f s: %s%n", s, e.getMessage());
            assertTrue(s >= 2 && s < 4, "ended after " + s + " s");
            assertTrue(e.getMessage().contains("GPU 0 did not finish the work queued before waiting for the GPU")
                    && e.getMessage().contains("within 2 s"), e.getMessage());
            flag.putInt(0, 1);
            ctx.synchronize(Duration.ofSeconds(30));
            assertTrue(ctx.awaitIdle("a free after the GPU ran on"), "a GPU that caught up is waited for again");
            assertArrayEquals(new float[] {1, 2, 3, 4}, data.toFloatArray(), "the GPU runs on once freed");
        } finally {
            flag.putInt(0, 1);
            ctx.synchronize(Duration.ofSeconds(30));
            cuMemFreeHost(host);
        }
    }
}
