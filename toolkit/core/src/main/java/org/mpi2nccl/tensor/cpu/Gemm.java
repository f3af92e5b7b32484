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
        if (!cls.equals("JNIBLAS")) return "pure-Java " + cls + " (no native libblas.so.3 found)";
        return "native " + loadedLibrary() + " via netlib JNIBLAS, "
                + (BLAS_SINGLE_THREADED ? "BLAS single-threaded, parallel over Java threads" : "BLAS's own threads");
    }

    /** The BLAS library the process has mapped (Linux: /proc/self/maps), e.g. libopenblasp-r0.3.21.so. */
    private static String loadedLibrary() {
        try {
            float[] one = {1f};
            BLAS_INSTANCE.sgemm("N", "N", 1, 1, 1, 1f, one, 1, one, 1, 0f, new float[1], 1); // make sure it is loaded
            java.util.List<String> libs = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/maps")).stream()
                    .map(l -> l.substring(l.lastIndexOf(' ') + 1))
                    .filter(p -> p.contains("blas") && !p.contains("netlibblasjni"))
                    .distinct().toList();
            String real = libs.stream().filter(p -> !p.endsWith("libblas.so.3")).findFirst().orElse(libs.isEmpty() ? null : libs.get(0));
            return real == null ? "libblas.so.3" : java.nio.file.Path.of(real).getFileName().toString();
        } catch (java.io.IOException | RuntimeException e) {
            return "libblas.so.3";
        }
    }

    static void batched(float[] a, float[] b, float[] c, int batch, int m, int n, int k,
                        boolean transA, boolean transB, int strideA, int strideB) {
        if (m == 0 || n == 0) return;
        int outStride = m * n;
        if (k == 0) {
            java.util.Arrays.fill(c, 0, batch * outStride, 0f);
            return;
        }
        if (!javaParallel) {
            // BLAS has its own threads: one product after the other, each spread by BLAS. Splitting over Java
            // threads as well would run BLAS threads on top of ours, more threads than cores: OpenBLAS's threads
            // spin while they wait, so each set takes the cores the other needs.
            for (int t = 0; t < batch; t++) one(a, t * strideA, b, t * strideB, c, t * outStride, m, n, k, transA, transB);
            return;
        }
        // BLAS runs on the calling thread only: the cores are ours to share out, over the batch when it is
        // large enough, else over blocks of rows of each product.
        long flopsEach = 2L * m * n * k;
        if (batch >= Parallel.THREADS) {
            Parallel.range(batch, flopsEach / 64, (from, to) -> {
                for (int t = from; t < to; t++) one(a, t * strideA, b, t * strideB, c, t * outStride, m, n, k, transA, transB);
            });
            return;
        }
        for (int t = 0; t < batch; t++) {
            int oa = t * strideA, ob = t * strideB, oc = t * outStride;
            // rows i0..i1 of op(A): rows of stored A, or columns when A is stored transposed
            Parallel.range(m, (long) n * k * 2 / 64, (i0, i1) -> {
                int rowOffset = transA ? i0 : i0 * k;
                oneBlock(a, oa + rowOffset, transA ? m : k, b, ob, c, oc + i0 * n, i1 - i0, n, k, transA, transB);
            });
        }
    }

    /**
     * True when the native BLAS was told to use one thread ({@code OPENBLAS_NUM_THREADS=1} or
     * {@code OMP_NUM_THREADS=1} in the environment, read by OpenBLAS at load time): then the Java side
     * parallelises, which for the many small per-sample products of a convolution is faster than BLAS's own
     * threads. build.sh and the test runner set it; without it BLAS threads are used as they are.
     */
    static final boolean BLAS_SINGLE_THREADED = "1".equals(System.getenv("OPENBLAS_NUM_THREADS"))
            || (System.getenv("OPENBLAS_NUM_THREADS") == null && "1".equals(System.getenv("OMP_NUM_THREADS")));

    /** Whether Java threads share out the products (tests switch it to check both ways give the same result). */
    static volatile boolean javaParallel = BLAS_SINGLE_THREADED;

    private static void one(float[] a, int offA, float[] b, int offB, float[] c, int offC,
                            int m, int n, int k, boolean transA, boolean transB) {
        oneBlock(a, offA, transA ? m : k, b, offB, c, offC, m, n, k, transA, transB);
    }

    /** {@code rows} rows of C (row-major, leading dimension n) from A at offA with leading dimension lda. */
    private static void oneBlock(float[] a, int offA, int lda, float[] b, int offB, float[] c, int offC,
                                 int rows, int n, int k, boolean transA, boolean transB) {
        int ldb = transB ? k : n;
        BLAS_INSTANCE.sgemm(transB ? "T" : "N", transA ? "T" : "N", n, rows, k, 1f, b, offB, ldb, a, offA, lda, 0f, c, offC, n);
    }
}
