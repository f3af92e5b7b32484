package org.mpi2nccl.tensor;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.GpuTests;

/**
 * The whole Backend contract on GPU 0 (every test of BackendContractTest), plus what the CUDA backend adds:
 * label errors reported after the kernel, TF32 on request, storages of another device refused.
 */
@Tag("gpu")
class CudaBackendContractTest extends BackendContractTest {
    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
    }

    @Override
    protected Device device() {
        return Device.cuda(0);
    }

    @Test
    void badLabelIsReportedAtTheNextWait() {
        Storage labels = upload(new float[] {0, 1, 3, 1.5f});
        Storage out = alloc(12);
        // checked on the GPU without stalling the host: the error comes when the host next waits for the GPU
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
            backend.oneHot(labels, out, 4, 3);
            backend.synchronize();
        });
        assertTrue(e.getMessage().contains("position 2 of a batch of 4") && e.getMessage().contains("not a class in [0, 3)"),
                e.getMessage());
        // the check was consumed: good labels afterwards raise nothing
        Storage good = upload(new float[] {0, 1, 2, 1});
        backend.oneHot(good, out, 4, 3);
        backend.synchronize();
    }

    @Test
    void badLabelSeveralStepsAgoIsStillReported() {
        Storage bad = upload(new float[] {0, 7});
        Storage good = upload(new float[] {0, 1});
        Storage out = alloc(6);
        backend.oneHot(bad, out, 2, 3);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
            for (int i = 0; i < 20; i++) backend.oneHot(good, out, 2, 3);   // the slot comes round: reported on the way
        });
        assertTrue(e.getMessage().contains("position 1 of a batch of 2"), e.getMessage());
    }

    @Test
    void crossEntropyFeedsTheSameDeferredLabelCheck() {
        Storage logits = upload(randoms(12, -1, 1)), bad = upload(new float[] {0, 1, -1, 2}), loss = alloc(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
            backend.softmaxCrossEntropy(logits, bad, loss, 4, 3);
            backend.synchronize();
        });
        assertTrue(e.getMessage().startsWith("softmaxCrossEntropy: the label at position 2 of a batch of 4")
                && e.getMessage().contains("not a class in [0, 3)"), e.getMessage());
        // a good batch afterwards (the kernel writes its flag every time, no reset): nothing reported, a finite loss
        Storage good = upload(new float[] {0, 1, 2, 1});
        for (int i = 0; i < 20; i++) backend.softmaxCrossEntropy(logits, good, loss, 4, 3);
        backend.synchronize();
        assertTrue(Float.isFinite(download(loss, 1)[0]), "loss of good labels");
    }

    @Test
    void describesTheGpu() {
        String d = backend.describe();
        System.out.println("CUDA backend: " + d);
        assertTrue(d.contains("cuBLAS") && d.contains("compute"), d);
    }

    @Test
    void tf32IsOffByDefaultAndChangesResultsOnlyWhenAskedFor() {
        int m = 256, n = 256, k = 1024;
        float[] a = randoms(m * k, -1, 1), b = randoms(k * n, -1, 1);
        float[] exact = new float[m * n];
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) s += a[i * k + p] * (double) b[p * n + j];
                exact[i * n + j] = (float) s;
            }
        Storage sa = upload(a), sb = upload(b), out = alloc(m * n);
        CudaBackend cuda = (CudaBackend) backend;
        backend.matmul(sa, sb, out, 1, m, n, k, false, false, 0, 0);
        assertClose(exact, download(out, m * n), 1e-4, "float32 GEMM");
        double maxErr32 = maxAbsDiff(exact, download(out, m * n));
        cuda.setTf32(true);
        try {
            backend.matmul(sa, sb, out, 1, m, n, k, false, false, 0, 0);
            double maxErrTf32 = maxAbsDiff(exact, download(out, m * n));
            System.out.println("GEMM 256x256x1024 max abs error: float32 " + maxErr32 + ", TF32 " + maxErrTf32);
            assertClose(exact, download(out, m * n), 5e-2, "TF32 GEMM (10-bit mantissa inputs)");
            assertTrue(maxErrTf32 > maxErr32, "TF32 should be visibly less exact than float32 (" + maxErrTf32 + " vs " + maxErr32 + ")");
        } finally {
            cuda.setTf32(false);
        }
    }

    @Test
    void storagesOfAnotherDeviceAreRefused() {
        Storage cpu = Device.cpu().backend().allocate(4);
        try {
            Storage gpu = alloc(4);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> backend.copy(cpu, 0, gpu, 0, 4));
            assertTrue(e.getMessage().contains("cpu"), e.getMessage());
        } finally {
            cpu.close();
        }
    }

    @Test
    void largeReductionsUseEveryChunkCorrectly() {
        int n = 1 << 24;                       // one long row: split into chunks, then reduced again
        float[] a = randoms(n, -1, 1);
        a[n - 3] = 5f;
        a[7] = -5f;
        Storage in = upload(a), out = alloc(1);
        double sum = 0;
        for (float v : a) sum += v;
        backend.reduce(ReduceOp.SUM, in, out, 1, n, 1);
        assertClose(new float[] {(float) sum}, download(out, 1), 1e-4 * Math.max(1, Math.sqrt(n) / Math.max(1, Math.abs(sum))), "sum of 2^24");
        backend.reduce(ReduceOp.MAX, in, out, 1, n, 1);
        assertClose(new float[] {5f}, download(out, 1), 0, "max of 2^24");
        backend.reduce(ReduceOp.MIN, in, out, 1, n, 1);
        assertClose(new float[] {-5f}, download(out, 1), 0, "min of 2^24");
        Storage cols = alloc(64);
        backend.reduce(ReduceOp.MAX, in, cols, 1, n / 64, 64);
        float[] expected = new float[64];
        java.util.Arrays.fill(expected, Float.NEGATIVE_INFINITY);
        for (int i = 0; i < n; i++) expected[i % 64] = Math.max(expected[i % 64], a[i]);
        assertClose(expected, download(cols, 64), 0, "column max over 2^18 rows");
    }

    /** Each launch plan of Reduction: warp per row, block per row, chunked rows (aligned or not), chunked columns. */
    @Test
    void everyReductionPlanMatchesTheReference() {
        int[][] cases = {{4096, 1000, 1}, {2048, 5000, 1}, {3, 50001, 1}, {2, 1 << 20, 1}, {1, 4097, 1}, {2, 3000, 33}, {1, 1 << 16, 8}};
        for (int[] c : cases) {
            int outer = c[0], red = c[1], inner = c[2];
            float[] a = randoms(outer * red * inner, -1, 1);
            Storage in = upload(a), out = alloc((long) outer * inner);
            for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN}) {
                float[] expected = new float[outer * inner];
                for (int o = 0; o < outer; o++)
                    for (int i = 0; i < inner; i++) {
                        double sum = 0;
                        float best = a[(o * red) * inner + i];
                        for (int r = 0; r < red; r++) {
                            float v = a[(o * red + r) * inner + i];
                            sum += v;
                            best = op == ReduceOp.MIN ? Math.min(best, v) : Math.max(best, v);
                        }
                        expected[o * inner + i] = op == ReduceOp.SUM ? (float) sum : best;
                    }
                backend.reduce(op, in, out, outer, red, inner);
                // sums of up to 2^20 uniform values: absolute error grows like sqrt(n) ulps of the partial sums
                assertClose(expected, download(out, outer * inner), op == ReduceOp.SUM ? 1e-4 * Math.max(1, Math.sqrt(red) / 30) : 0,
                        op + " over (" + outer + ", " + red + ", " + inner + ")");
            }
        }
    }

    private static double maxAbsDiff(float[] a, float[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
        return m;
    }
}
