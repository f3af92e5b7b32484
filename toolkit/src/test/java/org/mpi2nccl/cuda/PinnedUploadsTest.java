package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Copies to the GPU that do not wait for it (pinned staging ring): right data, reusable arrays, no stall. */
@Tag("gpu")
class PinnedUploadsTest {
    private static CudaContext ctx;

    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
        ctx = Cuda.device(0).context();
    }

    private static float[] randoms(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = r.nextFloat();
        return v;
    }

    @Test
    void largeAndPartialCopiesArriveEvenWhenTheArrayIsReusedAtOnce() {
        // more than two chunks and not a multiple of the chunk size: every piece of the ring is used
        int n = (int) (PinnedUploads.CHUNK_BYTES / 4 * 2 + 12345);
        float[] src = randoms(n, 1);
        float[] expected = src.clone();
        try (DeviceMemory m = DeviceMemory.allocateUnscoped(ctx, n * 4L)) {
            m.copyFrom(src);
            java.util.Arrays.fill(src, -1f);                 // the caller's array is free as soon as copyFrom returns
            assertArrayEquals(expected, m.toFloatArray());
            float[] part = randoms(1000, 2);
            m.copyFrom(part, 100, 5000, 700);                // src[100..800) -> device [5000..5700)
            float[] back = new float[700];
            m.copyTo(5000, back, 0, 700);
            assertArrayEquals(java.util.Arrays.copyOfRange(part, 100, 800), back);
            int[] ints = {7, -3, Integer.MAX_VALUE};
            m.copyFromInts(ints, 10);
            int[] intsBack = new int[3];
            m.copyToInts(10, intsBack);
            assertArrayEquals(ints, intsBack);
        }
    }

    @Test
    void manySmallUploadsInARowKeepTheirOrder() {
        // more uploads than ring slots, each overwriting the last: the device must hold the final one
        try (DeviceMemory m = DeviceMemory.allocateUnscoped(ctx, 4 * 256)) {
            float[] v = new float[256];
            for (int k = 0; k < 50; k++) {
                java.util.Arrays.fill(v, k);
                m.copyFrom(v);
            }
            float[] back = m.toFloatArray();
            for (float x : back) assertEquals(49f, x);
        }
    }

    @Test
    void uploadsDoNotWaitForQueuedKernels() {
        // a long fill queued first: the upload must return long before the GPU gets to it
        long big = 1L << 28;                              // 1 GiB of floats to fill, many times over
        try (DeviceMemory work = DeviceMemory.allocateUnscoped(ctx, big * 4); DeviceMemory m = DeviceMemory.allocateUnscoped(ctx, 4096)) {
            ctx.synchronize();
            long t0 = System.nanoTime();
            for (int i = 0; i < 20; i++) work.zero();
            long queued = System.nanoTime();
            m.copyFrom(new float[1024]);
            long uploaded = System.nanoTime();
            ctx.synchronize();
            long gpuDone = System.nanoTime();
            double uploadMs = (uploaded - queued) / 1e6, gpuMs = (gpuDone - t0) / 1e6;
            System.out.printf("upload behind 20 GiB of memset: returned in %.3f ms; GPU finished after %.1f ms%n", uploadMs, gpuMs);
            assertTrue(uploadMs < gpuMs / 4, "the upload waited for the GPU: " + uploadMs + " ms of " + gpuMs + " ms");
        }
    }

    @Test
    void slotsGrowToTheLargestUploadSoThatGrowingIsRare() {
        // inputs and labels alternate in a training loop: a slot sized for labels must not be freed and grown
        // whenever an input batch lands in it, as each free waits for the whole GPU
        int big = 3 << 18;                                 // 3 MiB of floats
        try (PinnedUploads uploads = new PinnedUploads(ctx); DeviceMemory m = DeviceMemory.allocateUnscoped(ctx, big * 4L)) {
            for (int k = 0; k < 5 * PinnedUploads.SLOTS; k++) {
                long bytes = k % 2 == 0 ? big * 4L : 4;
                uploads.upload(m.address(), bytes, (b, off) -> b.put(new byte[b.remaining()]), "upload " + k);
            }
            ctx.synchronize();
            assertEquals(PinnedUploads.SLOTS, uploads.allocations(), "one buffer a slot, none grown");
            assertEquals(PinnedUploads.SLOTS * big * 4L, uploads.pinnedBytes());
        }
    }

    @Test
    void aBoundedWaitForTheWholeGpuReturnsOnceQueuedWorkIsDone() {
        try (DeviceMemory work = DeviceMemory.allocateUnscoped(ctx, (1L << 28) * 4)) {
            for (int i = 0; i < 40; i++) work.zero();
            long t0 = System.nanoTime();
            assertTrue(ctx.awaitIdle("a test's wait"), "no wait on this GPU has run out of time");
            double waitedMs = (System.nanoTime() - t0) / 1e6;
            long t1 = System.nanoTime();
            ctx.synchronize();
            double leftMs = (System.nanoTime() - t1) / 1e6;
            System.out.printf("waited %.1f ms for 40 GiB of memset; the stream then had %.3f ms left%n", waitedMs, leftMs);
            assertTrue(waitedMs > 1 && leftMs < waitedMs / 10, "waited " + waitedMs + " ms, " + leftMs + " ms left after");
        }
    }
}
