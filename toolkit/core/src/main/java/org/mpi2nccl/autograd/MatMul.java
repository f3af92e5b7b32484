package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.NDArray;

/**
 * Matrix product (2-D or batched with broadcast batch axes): {@code dA = dC B^T}, {@code dB = A^T dC},
 * each summed over the batch axes its operand was broadcast along. The transposes are views: GEMM reads them
 * transposed, nothing is copied.
 */
final class MatMul extends Function {
    private NDArray a, b;

    @Override
    protected NDArray forward(NDArray... in) {
        a = in[0];
        b = in[1];
        return a.matmul(b);
    }

    @Override
    protected NDArray[] backward(NDArray g) {
        NDArray ga = null, gb = null;
        if (needsGrad(0)) {
            try (NDArray bt = b.transpose()) {
                ga = Ops.reduced(g.matmul(bt), a.shape());
            }
        }
        if (needsGrad(1)) {
            if (isTransposedMatrix(b) && a.ndim() == 2) {
                // b = W^T with W compact (Linear's weight): dW = g^T a comes out of GEMM compact, and b's gradient is
                // its transpose view, so the gradient arriving at W is compact (no strided copy to add it up)
                try (NDArray gt = g.transpose(); NDArray dw = gt.matmul(a)) {
                    gb = dw.transpose();
                }
            } else {
                try (NDArray at = a.transpose()) {
                    gb = Ops.reduced(at.matmul(g), b.shape());
                }
            }
        }
        return new NDArray[] {ga, gb};
    }

    /** A 2-D view whose transpose is compact. */
    private static boolean isTransposedMatrix(NDArray m) {
        if (m.ndim() != 2 || m.isCompact()) return false;
        try (NDArray t = m.transpose()) {
            return t.isCompact();
        }
    }
}
