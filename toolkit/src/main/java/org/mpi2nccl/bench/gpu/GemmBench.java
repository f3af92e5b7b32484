package org.mpi2nccl.bench.gpu;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.mpi2nccl.cuda.Cublas;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaContext;
import org.mpi2nccl.tensor.Storage;

/**
 * {@code bench-gpu --only gemm}: n x n x n float32 GEMM through cuBLAS, TF32 off and on, timed with CUDA events,
 * through both of cuBLAS's routes ({@link Cublas.Route}: cublasSgemm with a math mode, PyTorch's call and the
 * backend's default, and cublasGemmEx with a compute type). The PyTorch peer times torch.mm the same way.
 */
public final class GemmBench {
    private GemmBench() {}

    /** Seconds of GEMMs run untimed before each GEMM figure: the GPU's clocks and temperature settle first. */
    static final double GEMM_WARMUP_SECONDS = 1.0;
    /** GEMMs queued back to back between two events per sample (the host's launch time stays out of the figure). */
    static final int GEMM_BATCH = 10;
    /** Fewest samples per GEMM figure. */
    static final int GEMM_MIN_SAMPLES = 30;

    /**
     * n x n x n float32 GEMM, row-major C = A B (as torch.mm(a, b, out=c) in the peer), TF32 off and on, through
     * both cuBLAS routes. Each figure: {@value #GEMM_WARMUP_SECONDS} s of untimed GEMMs, then at least
     * {@value #GEMM_MIN_SAMPLES} samples of {@value #GEMM_BATCH} GEMMs between two events; the median sample is the
     * figure, the note gives the spread. The rows named like the peer's ("sgemm 4096^3 tf32") are the backend's
     * default route.
     */
    public static List<GpuFigure> gemm(CudaBackend backend, int n, int reps) {
        CudaContext ctx = backend.context();
        Cublas blas = ctx.cublas();
        List<GpuFigure> out = new ArrayList<>();
        withGemmOperands(backend, n, (routeBefore, a, b, c) -> {
            for (Cublas.Route route : new Cublas.Route[] {routeBefore, other(routeBefore)}) {
                blas.setRoute(route);
                for (boolean tf32 : new boolean[] {false, true}) {
                    backend.setTf32(tf32);
                    Runnable gemm = () -> backend.matmul(a, b, c, 1, n, n, n, false, false, 0, 0);
                    int warm = GpuTiming.warmUp(ctx, gemm, GEMM_WARMUP_SECONDS);
                    double[] ms = GpuTiming.timeGpuBatches(ctx, Math.max(reps, GEMM_MIN_SAMPLES), GEMM_BATCH, gemm);
                    double[] tflops = Arrays.stream(ms).map(t -> 2.0 * n * n * n / (t * 1e-3) / 1e12).sorted().toArray();
                    double med = GpuTiming.median(ms);
                    String call = route == Cublas.Route.GEMM_EX ? "cublasGemmEx, compute " + (tf32 ? "32F_FAST_TF32" : "32F")
                            : "cublasSgemm, math mode " + (tf32 ? "TF32_TENSOR_OP" : "DEFAULT") + " (PyTorch's call)";
                    String name = "sgemm " + n + "^3 " + (tf32 ? "tf32" : "float32") + (route == routeBefore ? "" : " [" + route.name().toLowerCase(Locale.ROOT) + "]");
                    out.add(new GpuFigure("gemm", name, 2.0 * n * n * n / (med * 1e-3) / 1e12, "TFLOP/s", med,
                            String.format("%s; median of %d samples of %d back to back (%.1f .. %.1f TFLOP/s) after %d warm-up GEMMs; workspace %d MiB",
                                    call, ms.length, GEMM_BATCH, tflops[0], tflops[tflops.length - 1], warm, blas.workspaceBytes() >> 20)));
                }
            }
        });
        return out;
    }

    /**
     * One n x n x n GEMM per cuBLAS route and TF32 setting, each on its own, synchronized: run with cuBLAS's API log
     * on (CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG=FILE, and CUBLASLT_LOG_LEVEL for the kernel cuBLAS picks), it shows
     * exactly which calls, math modes and workspace the toolkit hands cuBLAS, to set beside the same log of torch.mm.
     * The figure is that one call's time, for orientation only.
     */
    public static List<GpuFigure> gemmCalls(CudaBackend backend, int n) {
        CudaContext ctx = backend.context();
        Cublas blas = ctx.cublas();
        List<GpuFigure> out = new ArrayList<>();
        withGemmOperands(backend, n, (routeBefore, a, b, c) -> {
            for (Cublas.Route route : Cublas.Route.values()) {
                blas.setRoute(route);
                for (boolean tf32 : new boolean[] {false, true}) {
                    backend.setTf32(tf32);
                    System.out.println("gemm-calls: route " + route + ", tf32 " + tf32 + (route == routeBefore ? " (the default route)" : ""));
                    double ms = GpuTiming.timeGpu(ctx, 1, 0, () -> backend.matmul(a, b, c, 1, n, n, n, false, false, 0, 0));
                    out.add(new GpuFigure("gemm-call", "sgemm " + n + "^3 " + (tf32 ? "tf32" : "float32") + " [" + route.name().toLowerCase(Locale.ROOT) + "]",
                            2.0 * n * n * n / (ms * 1e-3) / 1e12, "TFLOP/s", ms, "one call, no warm-up: for the cuBLAS log, not a figure"));
                }
            }
        });
        return out;
    }

    /** What a GEMM benchmark does with its operands; {@code routeBefore} is the cuBLAS route it found (the default). */
    private interface GemmBody {
        void run(Cublas.Route routeBefore, Storage a, Storage b, Storage c);
    }

    /**
     * Runs {@code body} on n x n operands A and B (uniform in [-1, 1], seeds 1 and 2) and C, then puts cuBLAS's route
     * back, TF32 off, and frees the three, whatever the body did or threw.
     */
    private static void withGemmOperands(CudaBackend backend, int n, GemmBody body) {
        Cublas blas = backend.context().cublas();
        Cublas.Route routeBefore = blas.route();
        Storage a = backend.allocate((long) n * n), b = backend.allocate((long) n * n), c = backend.allocate((long) n * n);
        try {
            backend.fillUniform(a, (long) n * n, -1, 1, 1, 0);
            backend.fillUniform(b, (long) n * n, -1, 1, 2, 0);
            body.run(routeBefore, a, b, c);
        } finally {
            blas.setRoute(routeBefore);
            backend.setTf32(false);
            a.close();
            b.close();
            c.close();
        }
    }

    private static Cublas.Route other(Cublas.Route r) {
        return r == Cublas.Route.GEMM_EX ? Cublas.Route.SGEMM_MATH_MODE : Cublas.Route.GEMM_EX;
    }
}
