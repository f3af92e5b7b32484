package org.mpi2nccl.tensor.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Both ways of threading GEMM (BLAS's threads, or Java threads over batch / row blocks) give the reference result. */
class GemmThreadingTest {

    @Test
    void bothThreadingModesMatchTheReference() {
        Random r = new Random(5);
        boolean saved = Gemm.javaParallel;
        try {
            for (boolean javaParallel : new boolean[] {false, true})
                for (int batch : new int[] {1, 3})
                    for (boolean ta : new boolean[] {false, true})
                        for (boolean tb : new boolean[] {false, true}) {
                            Gemm.javaParallel = javaParallel;
                            int m = 97, n = 31, k = 45;
                            float[] a = new float[batch * m * k], b = new float[batch * k * n], c = new float[batch * m * n];
                            for (int i = 0; i < a.length; i++) a[i] = r.nextFloat() - 0.5f;
                            for (int i = 0; i < b.length; i++) b[i] = r.nextFloat() - 0.5f;
                            Gemm.batched(a, b, c, batch, m, n, k, ta, tb, m * k, k * n);
                            for (int t = 0; t < batch; t++)
                                for (int i = 0; i < m; i += 7)
                                    for (int j = 0; j < n; j += 3) {
                                        double s = 0;
                                        for (int p = 0; p < k; p++)
                                            s += (ta ? a[t * m * k + p * m + i] : a[t * m * k + i * k + p])
                                                    * (double) (tb ? b[t * k * n + j * k + p] : b[t * k * n + p * n + j]);
                                        assertEquals(s, c[t * m * n + i * n + j], 1e-4,
                                                "javaParallel=" + javaParallel + " batch=" + batch + " ta=" + ta + " tb=" + tb);
                                    }
                        }
        } finally {
            Gemm.javaParallel = saved;
        }
    }
}
