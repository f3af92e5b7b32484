package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.ReduceOp;
import org.mpi2nccl.tensor.Shapes;

/**
 * Sum and max over axes as autograd functions: the forward is {@code NDArray.reduce}, the backward spreads the
 * output gradient back over the reduced axes.
 */
final class ReductionFunctions {
    private ReductionFunctions() {}

    /** The output shape with the reduced axes kept as 1 (what the gradient is broadcast from). */
    static int[] keptShape(int[] shape, int[] axes) {
        int[] kept = shape.clone();
        for (int a : Shapes.axes(axes, shape.length, "reduce")) kept[a] = 1;
        return kept;
    }

    static final class Sum extends Function {
        final int[] axes;
        final boolean keepDims;
        int[] inShape;

        Sum(int[] axes, boolean keepDims) { this.axes = axes.clone(); this.keepDims = keepDims; }

        protected NDArray forward(NDArray... in) {
            inShape = in[0].shape();
            return in[0].reduce(ReduceOp.SUM, keepDims, axes);
        }

        protected NDArray[] backward(NDArray g) {
            try (NDArray k = g.reshape(keptShape(inShape, axes))) {
                return new NDArray[] {k.broadcastTo(inShape)};
            }
        }
    }

    /** Max; ties share the gradient equally (so the finite-difference check holds on them too). */
    static final class Max extends Function {
        final int[] axes;
        final boolean keepDims;
        NDArray a, out;

        Max(int[] axes, boolean keepDims) { this.axes = axes.clone(); this.keepDims = keepDims; }

        protected NDArray forward(NDArray... in) {
            a = in[0];
            return out = a.reduce(ReduceOp.MAX, keepDims, axes);
        }

        protected NDArray[] backward(NDArray g) {
            int[] kept = keptShape(a.shape(), axes);
            try (NDArray m = out.reshape(kept); NDArray mask = a.eq(m);
                 NDArray count = mask.reduce(ReduceOp.SUM, true, axes);
                 NDArray gk = g.reshape(kept); NDArray share = gk.div(count)) {
                return new NDArray[] {mask.mul(share)};
            }
        }
    }
}
