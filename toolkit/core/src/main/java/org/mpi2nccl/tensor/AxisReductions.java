package org.mpi2nccl.tensor;

import java.util.Arrays;

/**
 * Reductions of an {@link NDArray} over some of its axes (none given = all). A contiguous block of axes is one
 * backend reduction of the (outer, reduced, inner) compact array; several blocks (e.g. axes 0, 2, 3 of NCHW) are
 * reduced one block at a time, so nothing is permuted or copied.
 */
final class AxisReductions {
    private AxisReductions() {}

    static NDArray reduce(NDArray x, ReduceOp op, boolean keepDims, int... axes) {
        int[] shape = x.shape;
        String name = op.name().toLowerCase();
        int[] ax = Shapes.axes(axes, shape.length, name);
        boolean[] reduced = new boolean[shape.length];
        for (int a : ax) reduced[a] = true;
        for (int a : ax)
            if (shape[a] == 0) throw new IllegalArgumentException(name + ": cannot reduce over empty axis " + a + " of " + Shapes.str(shape));
        int[] outShape = new int[keepDims ? shape.length : shape.length - ax.length];
        for (int i = 0, j = 0; i < shape.length; i++) {
            if (keepDims) outShape[i] = reduced[i] ? 1 : shape[i];
            else if (!reduced[i]) outShape[j++] = shape[i];
        }
        if (ax.length == 0) return op == ReduceOp.ARGMAX ? NDArray.zeros(x.device(), shape) : x.copy(); // a 0-d array
        if (op == ReduceOp.ARGMAX && ax.length != 1)
            throw new IllegalArgumentException("argmax: reduces over exactly one axis, got " + Arrays.toString(axes));
        boolean block = ax[ax.length - 1] - ax[0] == ax.length - 1;
        if (!block) {
            // several blocks of axes, e.g. (0, 2, 3) of NCHW: reduce the last block in place of a permuted copy
            int start = ax.length - 1;
            while (start > 0 && ax[start - 1] == ax[start] - 1) start--;
            int[] last = Arrays.copyOfRange(ax, start, ax.length), rest = Arrays.copyOfRange(ax, 0, start);
            try (NDArray partial = reduce(x, op, true, last)) {
                NDArray kept = reduce(partial, op, true, rest);
                if (keepDims) return kept;
                try (kept) {
                    return kept.reshape(outShape);
                }
            }
        }
        // the reduced axes are one contiguous block: (outer, reduced, inner) of the compact array
        NDArray src = x.compact();
        long outer = 1, red = 1, inner = 1;
        for (int i = 0; i < ax[0]; i++) outer *= shape[i];
        for (int a : ax) red *= shape[a];
        for (int i = ax[ax.length - 1] + 1; i < shape.length; i++) inner *= shape[i];
        try (src) {
            NDArray out = NDArray.empty(x.device(), outShape);
            x.backend().reduce(op, src.storage(), out.storage(), outer, red, inner);
            return out;
        }
    }
}
