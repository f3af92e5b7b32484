package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.FloatPointer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The GPU runtime on a real GPU: contexts, memory and its lifetimes, copies, streams, events, modules. */
@Tag("gpu")
class CudaRuntimeTest {
    private static CudaContext ctx;

    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
        ctx = Cuda.device(0).context();
        System.out.println("GPU: " + Cuda.device(0) + "; driver CUDA " + Cuda.versionString(Cuda.driverVersion())
                + "; PTX " + ctx.ptxTarget() + "; memory: " + ctx.allocatorDescription());
    }

    private static float[] randoms(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = r.nextFloat() * 2 - 1;
        return v;
    }

    @Test
    void oneContextPerDeviceAndDevicesAreDescribed() {
        assertSame(ctx, Cuda.device(0).context());
        for (CudaDevice d : Cuda.devices()) {
            assertTrue(d.totalMemoryBytes > 0 && d.multiprocessors > 0 && !d.name.isBlank(), d.toString());
            System.out.println(d);
        }
        assertThrows(CudaUnavailableException.class, () -> Cuda.device(Cuda.deviceCount()));
    }

    @Test
    void jcudaMemoryIsReadableThroughJavaCppCudartSoTheyShareTheContext() {
        float[] v = randoms(1000, 1);
        try (DeviceMemory m = ctx.allocateFloats(v.length); FloatPointer host = new FloatPointer(v.length)) {
            m.copyFrom(v);
            int r = cudart.cudaMemcpy(host, new Handles.JavaCppAddress(m.address()), v.length * 4L, cudart.cudaMemcpyDeviceToHost);
            assertEquals(cudart.cudaSuccess, r, "cudaMemcpy on a JCuda allocation: " + cudart.cudaGetErrorString(r).getString());
            float[] back = new float[v.length];
            host.get(back);
            assertArrayEquals(v, back);
        }
    }

    @Test
    void copiesRoundTripWithOffsetsAndChecksRanges() {
        float[] v = randoms(4096, 2);
        try (DeviceMemory m = ctx.allocateFloats(5000)) {
            m.zero();
            m.copyFrom(v, 96, 10, 4000);
            float[] back = m.toFloatArray();
            for (int i = 0; i < 5000; i++) assertEquals(i >= 10 && i < 4010 ? v[i - 10 + 96] : 0f, back[i], 0f, "element " + i);
            assertThrows(IndexOutOfBoundsException.class, () -> m.copyFrom(v, 0, 4999, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> m.copyTo(0, new float[3], 0, 4));
            int[] ints = {1, -2, 3};
            m.copyFromInts(ints, 7);
            int[] intsBack = new int[3];
            m.copyToInts(7, intsBack);
            assertArrayEquals(ints, intsBack);
            try (DeviceMemory other = ctx.allocateFloats(10)) {
                other.copyFrom(m, 28, 0, 40);
                float[] o = other.toFloatArray();
                assertEquals(Float.intBitsToFloat(1), o[0], 0f);
            }
        }
    }

    @Test
    void closingFreesOnceAndCountsAndUseAfterCloseIsAnError() {
        CudaContext.MemoryStats before = ctx.memoryStats();
        DeviceMemory m = ctx.allocate(1 << 20);
        assertEquals(before.liveBytes() + (1 << 20), ctx.memoryStats().liveBytes());
        m.close();
        m.close();
        assertTrue(m.isClosed());
        assertEquals(before.liveBytes(), ctx.memoryStats().liveBytes());
        IllegalStateException e = assertThrows(IllegalStateException.class, m::address);
        assertTrue(e.getMessage().contains("already closed"), e.getMessage());
        try (DeviceMemory empty = ctx.allocate(0)) {
            assertEquals(0, empty.bytes());
            empty.copyFrom(new float[0]);
        }
    }

    @Test
    void scopesFreeWhatTheyOwnAndKeepMovesOut() {
        long live = ctx.memoryStats().liveBytes();
        DeviceMemory kept;
        DeviceMemory inner;
        try (MemoryScope outer = MemoryScope.open()) {
            DeviceMemory a = ctx.allocate(4096);
            try (MemoryScope s = MemoryScope.open()) {
                inner = ctx.allocate(4096);
                kept = s.keep(ctx.allocate(8192));
                assertEquals(1, s.size());
                assertEquals(2, outer.size());
            }
            assertTrue(inner.isClosed());
            assertFalse(kept.isClosed());
            assertFalse(a.isClosed());
            outer.keep(kept);
        }
        assertFalse(kept.isClosed(), "kept out of every scope");
        assertEquals(live + 8192, ctx.memoryStats().liveBytes());
        kept.close();
        assertEquals(live, ctx.memoryStats().liveBytes());
        MemoryScope a = MemoryScope.open();
        MemoryScope b = MemoryScope.open();
        assertThrows(IllegalStateException.class, a::close, "outer before inner");
        b.close();
        a.close();
    }

    @Test
    void forgottenBlocksAreReclaimedByTheGarbageCollector() throws InterruptedException {
        long reclaimed = ctx.memoryStats().reclaimedByGc();
        for (int i = 0; i < 64; i++) ctx.allocate(1 << 20);     // dropped without close()
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (ctx.memoryStats().reclaimedByGc() < reclaimed + 64 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50);
        }
        assertTrue(ctx.memoryStats().reclaimedByGc() >= reclaimed + 64,
                "the Cleaner freed " + (ctx.memoryStats().reclaimedByGc() - reclaimed) + " of 64 forgotten blocks in 20 s");
    }

    @Test
    void thePoolReusesFreedMemory() {
        ctx.synchronize();
        try (DeviceMemory warm = ctx.allocate(64 << 20)) {
            warm.zero();
        }
        ctx.synchronize();
        CudaContext.MemoryStats s0 = ctx.memoryStats();
        for (int i = 0; i < 50; i++) {
            try (DeviceMemory m = ctx.allocate(64 << 20)) {
                m.zero();
            }
        }
        ctx.synchronize();
        CudaContext.MemoryStats s1 = ctx.memoryStats();
        System.out.println("pool reserved " + s0.poolReserved() + " -> " + s1.poolReserved() + ", device free " + s0.deviceFree() + " -> " + s1.deviceFree());
        if (s0.poolReserved() >= 0) assertTrue(s1.poolReserved() <= s0.poolReserved() + (64 << 20), "pool grew: " + s0 + " -> " + s1);
        assertTrue(s1.deviceFree() >= s0.deviceFree() - (128L << 20), "device memory shrank: " + s0 + " -> " + s1);
    }

    @Test
    void pinnedBuffersCopyBothWaysAsynchronously() {
        int n = 1 << 20;
        float[] v = randoms(n, 3);
        try (PinnedHostBuffer up = PinnedHostBuffer.allocateFloats(ctx, n); PinnedHostBuffer down = PinnedHostBuffer.allocateFloats(ctx, n);
             DeviceMemory d = ctx.allocateFloats(n); CudaStream copies = new CudaStream(ctx);
             CudaEvent start = new CudaEvent(ctx); CudaEvent end = new CudaEvent(ctx)) {
            up.floatBuffer().put(v);
            start.record(copies.handle());
            up.copyToDeviceAsync(0, d, 0, 4L * n, copies.handle());
            down.copyFromDeviceAsync(d, 0, 0, 4L * n, copies.handle());
            end.record(copies.handle());
            float ms = CudaEvent.elapsedMillis(start, end);
            float[] back = new float[n];
            FloatBuffer fb = down.floatBuffer();
            fb.get(back);
            assertArrayEquals(v, back);
            assertTrue(ms > 0, "elapsed " + ms);
            System.out.println("pinned 4 MiB up+down on a side stream: " + ms + " ms");
        }
    }

    @Test
    void aSecondStreamWaitsForAnEvent() {
        int n = 1 << 22;
        try (DeviceMemory d = ctx.allocateFloats(n); PinnedHostBuffer h = PinnedHostBuffer.allocateFloats(ctx, n);
             CudaStream side = new CudaStream(ctx); CudaEvent filled = new CudaEvent(ctx)) {
            ctx.launch(Kernel.FILL, n, KernelArgs.of().ptr(d).f32(2.5f).i64(n));
            filled.record();
            side.waitFor(filled);
            h.copyFromDeviceAsync(d, 0, 0, 4L * n, side.handle());
            side.synchronize();
            FloatBuffer f = h.floatBuffer();
            assertEquals(2.5f, f.get(0));
            assertEquals(2.5f, f.get(n - 1));
        }
    }

    @Test
    void bothPtxTargetsJitAndRunEveryModule() {
        for (String target : List.of("sm90", "sm75")) {
            if (target.equals("sm90") && Cuda.device(0).computeMajor < 9) continue;
            KernelModules modules = new KernelModules(target);
            ctx.makeCurrent();
            List<String> failed = new ArrayList<>();
            for (Kernel k : Kernel.all()) {
                try {
                    modules.function(k);
                } catch (RuntimeException e) {
                    failed.add(k + ": " + e.getMessage());
                }
            }
            assertTrue(failed.isEmpty(), target + ": kernels that did not load: " + failed);
            try (DeviceMemory d = ctx.allocateFloats(1000)) {
                ctx.launch(modules, Kernel.FILL, 1000, KernelArgs.of().ptr(d).f32(-3f).i64(1000));
                float[] back = d.toFloatArray();
                for (float f : back) assertEquals(-3f, f, 0f, target);
            }
            System.out.println(target + ": " + Kernel.all().size() + " kernels in " + modules.loadedModules() + " modules loaded and ran");
        }
    }

    @Test
    void castsRoundTrip() {
        int n = 10_000;
        float[] v = randoms(n, 4);
        for (int i = 0; i < n; i++) v[i] *= 100;
        try (DeviceMemory f = ctx.allocateFloats(n); DeviceMemory h = ctx.allocate(2L * n); DeviceMemory back = ctx.allocateFloats(n);
             DeviceMemory ints = ctx.allocateFloats(n); DeviceMemory bytes = ctx.allocate(n)) {
            f.copyFrom(v);
            Casts.floatToHalf(f, h, n);
            Casts.halfToFloat(h, back, n);
            GpuTests.assertClose(v, back.toFloatArray(), 1e-3, "f32 -> f16 -> f32");
            Casts.floatToBfloat16(f, h, n);
            Casts.bfloat16ToFloat(h, back, n);
            GpuTests.assertClose(v, back.toFloatArray(), 8e-3, "f32 -> bf16 -> f32");
            Casts.floatToInt(f, ints, n);
            int[] i32 = new int[n];
            ints.copyToInts(0, i32);
            for (int i = 0; i < n; i++) assertEquals((int) v[i], i32[i], "(int) " + v[i]);
            Casts.intToFloat(ints, back, n);
            float[] fromInts = back.toFloatArray();
            for (int i = 0; i < n; i++) assertEquals((float) (int) v[i], fromInts[i], 0f);
            byte[] raw = new byte[n];
            for (int i = 0; i < n; i++) raw[i] = (byte) i;
            bytes.copyFromBytes(raw, 0);
            Casts.bytesToFloat(bytes, back, n, 1f / 255, -0.5f);
            float[] px = back.toFloatArray();
            for (int i = 0; i < n; i++) assertEquals((raw[i] & 0xFF) * (1f / 255) - 0.5f, px[i], 1e-6f);
        }
    }

    @Test
    void badLaunchesAreRefusedBeforeTheGpu() {
        try (DeviceMemory d = ctx.allocateFloats(10)) {
            assertThrows(IllegalArgumentException.class, () -> ctx.launch(Kernel.FILL, 10, KernelArgs.of().ptr(d).i64(10)));
            assertThrows(IllegalArgumentException.class, () -> ctx.launch(Kernel.FILL, -1, KernelArgs.of().ptr(d).f32(0).i64(10)));
            assertThrows(IndexOutOfBoundsException.class, () -> Casts.floatToHalf(d, d, 11));
        }
    }
}
