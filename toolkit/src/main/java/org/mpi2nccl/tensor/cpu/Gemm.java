package org.mpi2nccl.tensor.cpu;

import dev.ludovic.netlib.blas.BLAS;

/**
 * Row-major GEMM on top of column-major BLAS (netlib's binding picks native libblas.so.3 — OpenBLAS on
 * Debian — and falls back to a pure-Java implementation). A row-major (m x n) product C = A B is the
 * column-major product C^T = B^T A^T, so A and B swap places and nothing is copied.
 */
final class Gemm {
    private Gemm() {}

    private static final BLAS BLAS_INSTANCE = load();

    private static BLAS load() {
        // netlib logs a warning for each pure-Java fallback it cannot load (VectorBLAS needs an incubator
        // module) even when the native library loads; implementation() says what was chosen instead.
        java.util.logging.Logger.getLogger("dev.ludovic.netlib.blas.InstanceBuilder").setLevel(java.util.logging.Level.SEVERE);
        return BLAS.getInstance();
    }

    /** Which BLAS implementation netlib chose (JNIBLAS = native library, VectorBLAS/Java*BLAS = pure Java). */
    static String implementation() {
        String cls = BLAS_INSTANCE.getClass().getSimpleName();
        return cls.equals("JNIBLAS") ? "native BLAS via netlib JNIBLAS" : "pure-Java " + cls + " (no native BLAS found)";
    }

    static void batched(float[] a, float[] b, float[] c, int batch, int m, int n, int k,
                        boolean transA, boolean transB, int strideA, int strideB) {
        if (m == 0 || n == 0) return;
        int outStride = m * n;
        if (k == 0) {
            java.util.Arrays.fill(c, 0, batch * outStride, 0f);
            return;
        }
        // One product after the other, each spread by BLAS over its own threads. Splitting the batch over
        // Java threads as well would run BLAS threads on top of ours: on 2 cores that measured 2x slower
        // (OpenBLAS's threads spin while they wait).
        for (int t = 0; t < batch; t++) one(a, t * strideA, b, t * strideB, c, t * outStride, m, n, k, transA, transB);
    }

    private static void one(float[] a, int offA, float[] b, int offB, float[] c, int offC,
                            int m, int n, int k, boolean transA, boolean transB) {
        int lda = transA ? m : k;
        int ldb = transB ? k : n;
        BLAS_INSTANCE.sgemm(transB ? "T" : "N", transA ? "T" : "N", n, m, k, 1f, b, offB, ldb, a, offA, lda, 0f, c, offC, n);
    }
}
