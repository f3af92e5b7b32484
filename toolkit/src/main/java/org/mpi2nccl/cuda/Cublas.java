package org.mpi2nccl.cuda;

import static org.bytedeco.cuda.global.cublas.CUBLAS_COMPUTE_32F;
import static org.bytedeco.cuda.global.cublas.CUBLAS_COMPUTE_32F_FAST_TF32;
import static org.bytedeco.cuda.global.cublas.CUBLAS_DEFAULT_MATH;
import static org.bytedeco.cuda.global.cublas.CUBLAS_GEMM_DEFAULT;
import static org.bytedeco.cuda.global.cublas.CUBLAS_OP_N;
import static org.bytedeco.cuda.global.cublas.CUBLAS_OP_T;
import static org.bytedeco.cuda.global.cublas.CUBLAS_POINTER_MODE_HOST;
import static org.bytedeco.cuda.global.cublas.CUBLAS_STATUS_SUCCESS;
import static org.bytedeco.cuda.global.cublas.CUBLAS_TF32_TENSOR_OP_MATH;
import static org.bytedeco.cuda.global.cublas.cublasCreate_v2;
import static org.bytedeco.cuda.global.cublas.cublasGemmEx;
import static org.bytedeco.cuda.global.cublas.cublasGemmStridedBatchedEx;
import static org.bytedeco.cuda.global.cublas.cublasGetProperty;
import static org.bytedeco.cuda.global.cublas.cublasGetStatusString;
import static org.bytedeco.cuda.global.cublas.cublasSetMathMode;
import static org.bytedeco.cuda.global.cublas.cublasSetWorkspace_v2;
import static org.bytedeco.cuda.global.cublas.cublasSgemm_v2;
import static org.bytedeco.cuda.global.cublas.cublasSetPointerMode_v2;
import static org.bytedeco.cuda.global.cublas.cublasSetStream_v2;
import static org.bytedeco.cuda.global.cudart.CUDA_R_32F;

import org.bytedeco.cuda.cublas.cublasContext;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.FloatPointer;

/**
 * Matrix multiplication through cuBLAS (JavaCPP's binding), on the context's stream. The toolkit's arrays
 * are row-major and cuBLAS is column-major: a row-major {@code C = op(A) op(B)} is the column-major
 * {@code C^T = op(B)^T op(A)^T}, so each call swaps the operands instead of transposing anything.
 * <p>TF32 (tensor cores, 10-bit mantissa inputs) is off by default so results match the CPU to ~1e-6;
 * {@link #setTf32(boolean)} turns it on (PyTorch's {@code allow_tf32}).
 * <p>The handle gets the workspace PyTorch gives its cuBLAS handles (32 MiB on Hopper and newer, 8.1 MiB before;
 * CUBLAS_WORKSPACE_CONFIG=:SIZE_KIB:COUNT as in PyTorch overrides it), owned here for the context's lifetime, so
 * cuBLAS has the same room to choose its kernels as in the PyTorch peer of the benchmark. Two routes into cuBLAS
 * ({@link Route}): cublasSgemm with the handle's math mode saying TF32 or not, which is what PyTorch calls (the
 * default, {@link #DEFAULT_ROUTE}), or cublasGemmEx with the compute type saying it. GEMM_EX is kept for the
 * GEMM benchmark ({@code bench-gpu --only gemm}), which times both routes side by side.
 */
public final class Cublas {
    private final CudaContext context;
    private final cublasContext handle = new cublasContext();
    private final FloatPointer alpha = new FloatPointer(1);
    private final FloatPointer beta = new FloatPointer(1);
    private volatile boolean tf32;
    private volatile Route route = DEFAULT_ROUTE;
    private final DeviceMemory workspace;

    /**
     * The route float32 GEMMs take unless {@link #setRoute} says otherwise: PyTorch's own call for torch.mm on CUDA
     * (2.11, cuBLAS its preferred BLAS backend: at::cuda::blas::gemm&lt;float&gt; goes to cublasSgemm with the
     * handle's math mode set from allow_tf32), so the GEMM benchmark compares the same call on both sides.
     */
    public static final Route DEFAULT_ROUTE = Route.SGEMM_MATH_MODE;

    /** How a float32 GEMM is handed to cuBLAS. */
    public enum Route {
        /** cublasGemmEx, compute type CUBLAS_COMPUTE_32F or CUBLAS_COMPUTE_32F_FAST_TF32 */
        GEMM_EX,
        /** cublasSgemm with the math mode CUBLAS_DEFAULT_MATH or CUBLAS_TF32_TENSOR_OP_MATH (PyTorch's call) */
        SGEMM_MATH_MODE
    }

    Cublas(CudaContext context) {
        this.context = context;
        try {
            CudaLibraries.loadRuntimeAndBlas();
        } catch (CudaUnavailableException e) {
            throw new CudaUnavailableException("cuBLAS is needed for matmul/conv on the GPU: " + e.getMessage(), e);
        }
        check(cublasCreate_v2(handle), "cublasCreate");
        check(cublasSetStream_v2(handle, new CUstream_st(new Handles.JavaCppAddress(context.streamAddress()))), "cublasSetStream");
        check(cublasSetPointerMode_v2(handle, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
        long bytes = workspaceBytes(context.device.computeMajor, System.getenv("CUBLAS_WORKSPACE_CONFIG"));
        workspace = DeviceMemory.allocateUnscoped(context, bytes);
        check(cublasSetWorkspace_v2(handle, new Handles.JavaCppAddress(workspace.address()), bytes), "cublasSetWorkspace");
    }

    /**
     * PyTorch's cuBLAS workspace size: CUBLAS_WORKSPACE_CONFIG ":SIZE_KIB:COUNT[:SIZE_KIB:COUNT...]" summed, else
     * 4096 KiB x 8 on compute capability 9 and newer, 4096 KiB x 2 + 16 KiB x 8 before.
     */
    static long workspaceBytes(int computeMajor, String config) {
        if (config != null) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(":(\\d+):(\\d+)").matcher(config);
            long total = 0;
            boolean any = false;
            while (m.find()) {
                total += Long.parseLong(m.group(1)) * 1024 * Long.parseLong(m.group(2));
                any = true;
            }
            if (any) return total;
        }
        return computeMajor >= 9 ? 4096L * 1024 * 8 : 4096L * 1024 * 2 + 16L * 1024 * 8;
    }

    /** The size of the workspace the handle was given. */
    public long workspaceBytes() {
        return workspace.bytes();
    }

    /** Which cuBLAS call float32 GEMMs go through (the benchmark compares them; results are the same either way). */
    public void setRoute(Route r) {
        route = java.util.Objects.requireNonNull(r);
    }

    public Route route() {
        return route;
    }

    /** Allows TF32 tensor-core math for float32 GEMMs (faster, ~1e-3 relative error). */
    public void setTf32(boolean on) {
        tf32 = on;
    }

    public boolean tf32() {
        return tf32;
    }

    /** cuBLAS's version as major*10000 + minor*100 + patch. */
    public static int version() {
        CudaLibraries.loadRuntimeAndBlas();
        int[] v = new int[1];
        int major = cublasGetProperty(0, v) == CUBLAS_STATUS_SUCCESS ? v[0] : 0;
        int minor = cublasGetProperty(1, v) == CUBLAS_STATUS_SUCCESS ? v[0] : 0;
        int patch = cublasGetProperty(2, v) == CUBLAS_STATUS_SUCCESS ? v[0] : 0;
        return major * 10000 + minor * 100 + patch;
    }

    /**
     * Row-major {@code C[m,n] = alpha * op(A) @ op(B) + beta * C}, op(A) being [m,k] and op(B) [k,n]; lda/ldb/ldc
     * are the row lengths of A, B, C as stored (A is stored [m,k], or [k,m] when transA). Queued, no wait.
     */
    public synchronized void gemm(boolean transA, boolean transB, int m, int n, int k, float alphaValue,
                                  long a, int lda, long b, int ldb, float betaValue, long c, int ldc) {
        checkDims(m, n, k);
        if (m == 0 || n == 0) return;
        context.makeCurrent();
        alpha.put(alphaValue);
        beta.put(betaValue);
        if (route == Route.SGEMM_MATH_MODE) {
            check(cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
            try {
                check(cublasSgemm_v2(handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N, transA ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
                        alpha, floats(b), ldb, floats(a), lda, beta, floats(c), ldc), "cublasSgemm " + m + "x" + n + "x" + k);
            } finally {
                check(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
            }
            return;
        }
        check(cublasGemmEx(handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N, transA ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
                alpha, new Handles.JavaCppAddress(b), CUDA_R_32F, ldb, new Handles.JavaCppAddress(a), CUDA_R_32F, lda,
                beta, new Handles.JavaCppAddress(c), CUDA_R_32F, ldc, computeType(), CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx " + m + "x" + n + "x" + k);
    }

    /** {@link #gemm} over {@code batch} matrices, each operand {@code stride*} floats after the previous one (0 = shared). */
    public synchronized void gemmBatched(boolean transA, boolean transB, int m, int n, int k, float alphaValue,
                                         long a, int lda, long strideA, long b, int ldb, long strideB, float betaValue,
                                         long c, int ldc, long strideC, int batch) {
        checkDims(m, n, k);
        if (m == 0 || n == 0 || batch == 0) return;
        context.makeCurrent();
        alpha.put(alphaValue);
        beta.put(betaValue);
        check(cublasGemmStridedBatchedEx(handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N, transA ? CUBLAS_OP_T : CUBLAS_OP_N,
                n, m, k, alpha, new Handles.JavaCppAddress(b), CUDA_R_32F, ldb, strideB,
                new Handles.JavaCppAddress(a), CUDA_R_32F, lda, strideA, beta,
                new Handles.JavaCppAddress(c), CUDA_R_32F, ldc, strideC, batch, computeType(), CUBLAS_GEMM_DEFAULT),
                "cublasGemmStridedBatchedEx " + batch + "x(" + m + "x" + n + "x" + k + ")");
    }

    private static FloatPointer floats(long deviceAddress) {
        return new FloatPointer(new Handles.JavaCppAddress(deviceAddress));
    }

    private int computeType() {
        return tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    }

    private static void checkDims(int m, int n, int k) {
        if (m < 0 || n < 0 || k < 0) throw new IllegalArgumentException("negative GEMM size " + m + "x" + n + "x" + k);
    }

    static void check(int status, String what) {
        if (status != CUBLAS_STATUS_SUCCESS) {
            String name;
            try {
                name = cublasGetStatusString(status).getString();
            } catch (RuntimeException | LinkageError e) {
                name = "status " + status;
            }
            throw new IllegalStateException(what + " failed: " + name + " (" + status + ")");
        }
    }
}
