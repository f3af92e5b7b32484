package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.NDArray;

/** Operations that move elements without arithmetic: their gradients move them back. */
final class ShapeOps {
    private ShapeOps() {}

    static final class Reshape extends Function {
        final int[] shape;
        int[] inShape;
        Reshape(int[] shape) { this.shape = shape.clone(); }
        protected NDArray forward(NDArray... in) { inShape = in[0].shape(); return in[0].reshape(shape); }
        protected NDArray[] backward(NDArray g) { return new NDArray[] {g.reshape(inShape)}; }
    }

    static final class Permute extends Function {
        final int[] axes;
        Permute(int[] axes) { this.axes = axes.clone(); }
        protected NDArray forward(NDArray... in) { return in[0].permute(axes); }
        protected NDArray[] backward(NDArray g) {
            int[] inverse = new int[axes.length];
            for (int i = 0; i < axes.length; i++) inverse[axes[i] < 0 ? axes[i] + axes.length : axes[i]] = i;
            return new NDArray[] {g.permute(inverse)};
        }
    }

    static final class BroadcastTo extends Function {
        final int[] shape;
        int[] inShape;
        BroadcastTo(int[] shape) { this.shape = shape.clone(); }
        protected NDArray forward(NDArray... in) { inShape = in[0].shape(); return in[0].broadcastTo(shape); }
        protected NDArray[] backward(NDArray g) { return new NDArray[] {Grads.sumTo(g, inShape)}; }
    }

    static final class Slice extends Function {
        final int axis, start, end;
        int[] inShape;
        Slice(int axis, int start, int end) { this.axis = axis; this.start = start; this.end = end; }
        protected NDArray forward(NDArray... in) { inShape = in[0].shape(); return in[0].slice(axis, start, end); }
        protected NDArray[] backward(NDArray g) {
            NDArray full = NDArray.zeros(g.device(), inShape);
            try (NDArray part = full.slice(axis, start, end)) {
                part.assign(g);
            }
            return new NDArray[] {full};
        }
    }

    static final class Stack extends Function {
        final int axis;
        int n;
        Stack(int axis) { this.axis = axis; }
        protected NDArray forward(NDArray... in) { n = in.length; return NDArray.stack(axis, in); }
        protected NDArray[] backward(NDArray g) {
            int ax = axis < 0 ? axis + g.ndim() : axis;
            NDArray[] out = new NDArray[n];
            for (int i = 0; i < n; i++) out[i] = needsGrad(i) ? g.select(ax, i) : null;
            return out;
        }
    }

    static final class Concat extends Function {
        final int axis;
        int[] sizes;
        Concat(int axis) { this.axis = axis; }
        protected NDArray forward(NDArray... in) {
            sizes = new int[in.length];
            for (int i = 0; i < in.length; i++) sizes[i] = in[i].shape(axis);
            return NDArray.concat(axis, in);
        }
        protected NDArray[] backward(NDArray g) {
            NDArray[] out = new NDArray[sizes.length];
            int at = 0;
            for (int i = 0; i < sizes.length; i++) {
                out[i] = needsGrad(i) ? g.slice(axis, at, at + sizes[i]) : null;
                at += sizes[i];
            }
            return out;
        }
    }
}
