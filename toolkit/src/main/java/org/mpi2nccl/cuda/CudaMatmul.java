package org.mpi2nccl.cuda;

import static org.mpi2nccl.cuda.CudaBackend.checkRange;

import org.mpi2nccl.tensor.Storage;

/**
 * Matrix multiplication for {@link CudaBackend}: the contract's row-major, optionally transposed and batched
 * {@code out = op(A) op(B)}, checked against the storages' sizes and handed to {@link Cublas} (one cuBLAS call, a
 * strided-batched one for {@code batch > 1}). The convolutions are GEMMs through here after im2col.
 */
final class CudaMatmul {
    private final CudaBackend backend;
    private final CudaContext context;

    CudaMatmul(CudaBackend backend, CudaContext context) {
        this.backend = backend;
        this.context = context;
    }

    void matmul(Storage a, Storage b, Storage out, int batch, int m, int n, int k,
                boolean transA, boolean transB, long strideA, long strideB) {
        if (batch < 1 || m < 0 || n < 0 || k < 0 || strideA < 0 || strideB < 0) {
            throw new IllegalArgumentException("matmul: bad sizes batch=" + batch + " m=" + m + " n=" + n + " k=" + k
                    + " strideA=" + strideA + " strideB=" + strideB);
        }
        long pa = backend.address(a, "matmul A"), pb = backend.address(b, "matmul B"), po = backend.address(out, "matmul out");
        checkRange("matmul A", a, 0, (batch - 1) * strideA + (long) m * k);
        checkRange("matmul B", b, 0, (batch - 1) * strideB + (long) k * n);
        checkRange("matmul out", out, 0, (long) batch * m * n);
        if (m == 0 || n == 0) return;
        if (k == 0) {
            backend.fill(out, 0, (long) batch * m * n, 0f);
            return;
        }
        int lda = transA ? m : k, ldb = transB ? k : n;
        Cublas blas = context.cublas();
        context.countLibraryCall();
        if (batch == 1) {
            blas.gemm(transA, transB, m, n, k, 1f, pa, lda, pb, ldb, 0f, po, n);
        } else {
            blas.gemmBatched(transA, transB, m, n, k, 1f, pa, lda, strideA, pb, ldb, strideB, 0f, po, n, (long) m * n, batch);
        }
    }
}
