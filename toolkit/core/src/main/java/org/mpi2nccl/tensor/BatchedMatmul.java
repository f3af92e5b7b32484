package org.mpi2nccl.tensor;

import java.util.Arrays;

/**
 * {@link NDArray#matmul}: NumPy's matmul over the last two axes, (m, k) @ (k, n), batched over broadcast leading
 * axes, as one {@link Backend#matmul} call (a strided-batched GEMM). Each operand is passed as GEMM wants it
 * ({@link GemmOperand}): compact, a transposed view of a compact matrix passed as transposed (not copied), and a
 * matrix shared by the whole batch passed once with batch stride 0.
 */
final class BatchedMatmul {
    private BatchedMatmul() {}

    static NDArray matmul(NDArray x, NDArray other) {
        x.requireSameDevice(other, "matmul");
        int[] shape = x.shape;
        if (shape.length < 2 || other.shape.length < 2)
            throw new IllegalArgumentException("matmul: needs 2 or more dimensions, got " + Shapes.str(shape) + " and " + Shapes.str(other.shape));
        int m = shape[shape.length - 2], k = shape[shape.length - 1];
        int k2 = other.shape[other.shape.length - 2], n = other.shape[other.shape.length - 1];
        if (k != k2)
            throw new IllegalArgumentException("matmul: shapes " + Shapes.str(shape) + " and " + Shapes.str(other.shape)
                    + " do not match (inner dimensions " + k + " vs " + k2 + ")");
        int[] batchA = Arrays.copyOf(shape, shape.length - 2), batchB = Arrays.copyOf(other.shape, other.shape.length - 2);
        int[] batchShape = Shapes.broadcast(batchA, batchB, "matmul");
        int batch = (int) Shapes.size(batchShape);
        int[] outShape = Arrays.copyOf(batchShape, batchShape.length + 2);
        outShape[batchShape.length] = m;
        outShape[batchShape.length + 1] = n;
        try (GemmOperand a = GemmOperand.of(x, batchShape); GemmOperand b = GemmOperand.of(other, batchShape)) {
            NDArray out = NDArray.empty(x.device(), outShape);
            x.backend().matmul(a.array.storage(), b.array.storage(), out.storage(), batch, m, n, k,
                    a.transposed, b.transposed, a.batchStride, b.batchStride);
            return out;
        }
    }

    /** A matmul operand as GEMM wants it: compact, maybe transposed, batch stride 0 when shared by the batch. */
    private static final class GemmOperand implements AutoCloseable {
        final NDArray array;
        final boolean transposed;
        final long batchStride;

        private GemmOperand(NDArray array, boolean transposed, long batchStride) {
            this.array = array;
            this.transposed = transposed;
            this.batchStride = batchStride;
        }

        static GemmOperand of(NDArray x, int[] batchShape) {
            int nd = x.shape.length;
            int rows = x.shape[nd - 2], cols = x.shape[nd - 1];
            long matrix = (long) rows * cols;
            boolean sharedByBatch = Shapes.size(Arrays.copyOf(x.shape, nd - 2)) == 1;
            if (sharedByBatch) {
                // one matrix for the whole batch: plain, or a transposed view of a compact matrix
                int[] s2 = {rows, cols};
                try (NDArray m2 = ArrayViews.lastTwoAxes(x)) {
                    if (m2 != null) {
                        if (m2.isCompact()) return new GemmOperand(m2.compact(), false, 0);
                        if (m2.offset == 0 && m2.strides[0] == 1 && m2.strides[1] == rows)
                            return new GemmOperand(m2.view(new int[] {cols, rows}, new long[] {rows, 1}, 0), true, 0);
                    }
                }
                try (NDArray r = x.reshape(s2)) {
                    return new GemmOperand(r.compact(), false, 0);
                }
            }
            int[] full = Arrays.copyOf(batchShape, batchShape.length + 2);
            full[batchShape.length] = rows;
            full[batchShape.length + 1] = cols;
            try (NDArray b = x.broadcastTo(full)) {
                return new GemmOperand(b.compact(), false, matrix);
            }
        }

        @Override
        public void close() { array.close(); }
    }
}
