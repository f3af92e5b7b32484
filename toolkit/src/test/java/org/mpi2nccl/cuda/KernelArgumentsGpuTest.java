package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Kernel launches on a real GPU ({@link DriverLaunch}): every kind of argument (pointer, long, int, float, Layout,
 * Window2d, SgdTensors, AdamTensors) reaches the kernel as {@link KernelArgs} packed it (outputs equal to the CPU's);
 * JavaCPP's binding loads; threads launching at once on one context share its parameter block safely.
 */
@Tag("gpu")
class KernelArgumentsGpuTest {
    private static CudaContext ctx;

    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
        ctx = Cuda.device(0).context();
        System.out.println("kernel launches: " + ctx.launchDescription());
    }

    @Test
    void kernelsLaunchThroughJavaCpp() {
        assertEquals(DriverLaunch.DESCRIPTION, ctx.launchDescription());
        assertTrue(ctx.launchDescription().contains("JavaCPP"), ctx.launchDescription());
    }

    @Test
    void scalarsOfEveryTypeArrive() {
        float[] a = randoms(1000, 1);
        // fill (pointer, float, long); s - a[i] (pointer, float, pointer, long, int reversed = 1)
        float[] fill = launched(() -> {
            try (DeviceMemory out = ctx.allocateFloats(1000)) {
                ctx.launch(Kernel.FILL, 1000, KernelArgs.of().ptr(out).f32(-3.25f).i64(1000));
                return out.toFloatArray();
            }
        });
        for (int i = 0; i < 1000; i++) assertEquals(-3.25f, fill[i], "element " + i);
        float[] rsub = launched(() -> {
            try (DeviceMemory in = ctx.allocateFloats(1000); DeviceMemory out = ctx.allocateFloats(1000)) {
                in.copyFrom(a);
                ctx.launch(Kernel.binaryScalar(org.mpi2nccl.tensor.BinaryOp.SUB), 1000,
                        KernelArgs.of().ptr(in).f32(0.5f).ptr(out).i64(1000).i32(1));
                return out.toFloatArray();
            }
        });
        for (int i = 0; i < 1000; i++) assertEquals(0.5f - a[i], rsub[i], "0.5 - a[" + i + "]");
    }

    @Test
    void layoutStructsArrive() {
        int rows = 37, cols = 53;
        float[] a = randoms(rows * cols, 2);
        // the transpose of a [rows, cols] matrix: read with the transposed strides, write contiguous
        float[] t = launched(() -> {
            try (DeviceMemory in = ctx.allocateFloats(a.length); DeviceMemory out = ctx.allocateFloats(a.length)) {
                in.copyFrom(a);
                ctx.launch(Kernel.COPY_STRIDED, a.length, KernelArgs.of()
                        .ptr(in).layout(new Layout(new long[] {cols, rows}, new long[] {1, cols}, 0))
                        .ptr(out).layout(Layout.contiguous(cols, rows)).i64(a.length));
                return out.toFloatArray();
            }
        });
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) assertEquals(a[r * cols + c], t[c * rows + r], "element " + r + "," + c);
        }
    }

    @Test
    void windowStructArrives() {
        long n = 2, c = 3, h = 9, w = 7, kh = 3, kw = 2, sh = 2, sw = 1, ph = 1, pw = 0;
        long oh = (h + 2 * ph - kh) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
        float[] x = randoms((int) (n * c * h * w), 3);
        int colsLength = (int) (n * c * kh * kw * oh * ow);
        float[] cols = launched(() -> {
            try (DeviceMemory in = ctx.allocateFloats(x.length); DeviceMemory out = ctx.allocateFloats(colsLength)) {
                in.copyFrom(x);
                ctx.launch(Kernel.IM2COL, colsLength, KernelArgs.of().ptr(in).ptr(out).window(n, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow));
                return out.toFloatArray();
            }
        });
        // one entry checked by hand: sample 1, channel 2, window row 1, column 0, output pixel (2, 3)
        long s = 1, ch = 2, i = 1, j = 0, oy = 2, ox = 3;
        long row = (ch * kh + i) * kw + j, p = oh * ow, q = oy * ow + ox;
        long y = oy * sh - ph + i, xx = ox * sw - pw + j;
        assertEquals(x[(int) (((s * c + ch) * h + y) * w + xx)], cols[(int) ((s * c * kh * kw + row) * p + q)]);
    }

    @Test
    void optimizerTensorListsArrive() {
        int[] sizes = {100, 1, 300};
        float lr = 0.1f, momentum = 0.9f, wd = 0.01f;
        float[][] params = new float[3][], grads = new float[3][], velocities = new float[3][];
        for (int k = 0; k < 3; k++) {
            params[k] = randoms(sizes[k], 10 + k);
            grads[k] = randoms(sizes[k], 20 + k);
            velocities[k] = randoms(sizes[k], 30 + k);
        }
        float[] sgd = tensorListStep(false, sizes, params, grads, velocities, lr, momentum, wd);
        int at = 0;
        for (int k = 0; k < 3; k++) {
            for (int e = 0; e < sizes[k]; e++, at++) {
                float d = momentum * velocities[k][e] + (grads[k][e] + wd * params[k][e]);
                assertEquals(params[k][e] - lr * d, sgd[at], 1e-6f, "SGD parameter " + k + "[" + e + "]");
            }
        }
        float[] adam = tensorListStep(true, sizes, params, grads, velocities, lr, momentum, wd);
        assertFalse(java.util.Arrays.equals(flat(params), adam), "Adam moved the parameters");
        // Adam with beta1 0.9, beta2 0.999, eps 1e-8, bias corrections 0.1 and 0.001, second moments starting at 0
        at = 0;
        for (int k = 0; k < 3; k++) {
            for (int e = 0; e < sizes[k]; e++, at++) {
                float d = grads[k][e] + wd * params[k][e];
                float m = 0.9f * velocities[k][e] + (1f - 0.9f) * d, v = (1f - 0.999f) * d * d;
                float want = params[k][e] - lr * (m / 0.1f) / ((float) Math.sqrt(v / 0.001f) + 1e-8f);
                assertEquals(want, adam[at], 1e-4f * Math.max(1f, Math.abs(want)), "Adam parameter " + k + "[" + e + "]");
            }
        }
    }

    @Test
    void threadsLaunchingAtOnceShareTheBlockSafely() throws Exception {
        int threads = 4, launches = 3000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<DeviceMemory> outs = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) outs.add(ctx.allocateFloats(64));
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                DeviceMemory out = outs.get(t);
                int id = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < launches; i++) {
                        ctx.launch(Kernel.FILL, 64, KernelArgs.of().ptr(out).f32(id * 100_000 + i).i64(64));
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) f.get(120, TimeUnit.SECONDS);
            ctx.synchronize();
            for (int t = 0; t < threads; t++) {
                float[] got = outs.get(t).toFloatArray();
                for (float v : got) assertEquals(t * 100_000 + launches - 1, v, "thread " + t + "'s last fill");
            }
        } finally {
            pool.shutdownNow();
            for (DeviceMemory m : outs) m.close();
        }
    }

    /** Runs {@code launch} (kernels queued, results copied back) and returns its floats. */
    private static float[] launched(Supplier<float[]> launch) {
        return launch.get();
    }

    /** One sgd_steps_f32 or adam_steps_f32 launch over three tensors; returns the parameters after it. */
    private static float[] tensorListStep(boolean adam, int[] sizes, float[][] params, float[][] grads,
                                          float[][] velocities, float lr, float momentum, float wd) {
        List<DeviceMemory> held = new ArrayList<>();
        try {
            long[] n = new long[3], p = new long[3], g = new long[3], v = new long[3], v2 = new long[3];
            for (int k = 0; k < 3; k++) {
                n[k] = sizes[k];
                p[k] = upload(held, params[k]);
                g[k] = upload(held, grads[k]);
                v[k] = upload(held, velocities[k]);
                v2[k] = upload(held, new float[sizes[k]]);
            }
            long items = 300;
            KernelArgs args = adam
                    ? KernelArgs.of().adamTensors(3, n, p, g, v, v2).f32(lr).f32(0.9f).f32(0.999f).f32(1e-8f).f32(wd).f32(0.1f).f32(0.001f)
                    : KernelArgs.of().sgdTensors(3, n, p, g, v).f32(lr).f32(momentum).f32(wd);
            ctx.launch(adam ? Kernel.ADAM_STEPS : Kernel.SGD_STEPS, items, args);
            float[] out = new float[sizes[0] + sizes[1] + sizes[2]];
            int at = 0;
            for (int k = 0; k < 3; k++) {
                held.get(4 * k).copyTo(0, out, at, sizes[k]);
                at += sizes[k];
            }
            return out;
        } finally {
            for (DeviceMemory m : held) m.close();
        }
    }

    private static long upload(List<DeviceMemory> held, float[] values) {
        DeviceMemory m = ctx.allocateFloats(values.length);
        held.add(m);
        m.copyFrom(values);
        return m.address();
    }

    private static float[] flat(float[][] parts) {
        int n = 0;
        for (float[] p : parts) n += p.length;
        float[] out = new float[n];
        int at = 0;
        for (float[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    private static float[] randoms(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = r.nextFloat() * 2 - 1;
        return v;
    }
}
