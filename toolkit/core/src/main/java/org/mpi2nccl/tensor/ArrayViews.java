package org.mpi2nccl.tensor;

import java.util.Arrays;

/**
 * The views of an {@link NDArray}: new shapes, strides and offsets over the same storage, nothing copied (except
 * reshape of a non-contiguous array, which needs a compact copy first). NumPy's rules: reshape with one -1,
 * permute, broadcasting (stride 0 on stretched axes), slices with a step, select, unsqueeze.
 */
final class ArrayViews {
    private ArrayViews() {}

    static NDArray reshape(NDArray x, int... newShape) {
        int[] s = newShape.clone();
        int unknown = -1;
        long known = 1;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == -1) {
                if (unknown >= 0) throw new IllegalArgumentException("reshape: only one -1 allowed in " + Shapes.str(newShape));
                unknown = i;
            } else {
                known *= s[i];
            }
        }
        if (unknown >= 0) {
            if (known == 0 || x.size % known != 0)
                throw new IllegalArgumentException("reshape: cannot reshape " + Shapes.str(x.shape) + " into " + Shapes.str(newShape));
            s[unknown] = (int) (x.size / known);
        }
        Shapes.checkShape(s, "reshape");
        if (Shapes.size(s) != x.size)
            throw new IllegalArgumentException("reshape: cannot reshape " + Shapes.str(x.shape) + " (" + x.size
                    + " elements) into " + Shapes.str(newShape) + " (" + Shapes.size(s) + " elements)");
        if (x.isContiguous()) return x.view(s, Shapes.rowMajorStrides(s), x.offset);
        try (NDArray c = x.compact()) {
            return c.view(s, Shapes.rowMajorStrides(s), 0);
        }
    }

    static NDArray flatten(NDArray x, int startAxis) {
        int a = Shapes.axis(startAxis, Math.max(x.shape.length, 1), "flatten");
        int[] s = new int[a + 1];
        System.arraycopy(x.shape, 0, s, 0, a);
        long rest = 1;
        for (int i = a; i < x.shape.length; i++) rest *= x.shape[i];
        s[a] = (int) rest;
        return reshape(x, s);
    }

    static NDArray permute(NDArray x, int... axes) {
        if (axes.length != x.shape.length)
            throw new IllegalArgumentException("permute: " + axes.length + " axes given for shape " + Shapes.str(x.shape));
        int[] s = new int[axes.length];
        long[] st = new long[axes.length];
        boolean[] seen = new boolean[axes.length];
        for (int i = 0; i < axes.length; i++) {
            int a = Shapes.axis(axes[i], x.shape.length, "permute");
            if (seen[a]) throw new IllegalArgumentException("permute: axis " + a + " given twice in " + Arrays.toString(axes));
            seen[a] = true;
            s[i] = x.shape[a];
            st[i] = x.strides[a];
        }
        return x.view(s, st, x.offset);
    }

    static NDArray transpose(NDArray x, int axis1, int axis2) {
        int[] p = new int[x.shape.length];
        for (int i = 0; i < p.length; i++) p[i] = i;
        int a = Shapes.axis(axis1, x.shape.length, "transpose"), b = Shapes.axis(axis2, x.shape.length, "transpose");
        p[a] = b;
        p[b] = a;
        return permute(x, p);
    }

    static NDArray broadcastTo(NDArray x, int... target) {
        int[] shape = x.shape;
        if (target.length < shape.length)
            throw new IllegalArgumentException("broadcastTo: cannot broadcast " + Shapes.str(shape) + " to " + Shapes.str(target));
        int lead = target.length - shape.length;
        long[] st = new long[target.length];
        for (int i = 0; i < target.length; i++) {
            if (i < lead) { st[i] = 0; continue; }
            int d = shape[i - lead];
            if (d == target[i]) st[i] = x.strides[i - lead];
            else if (d == 1) st[i] = 0;
            else throw new IllegalArgumentException("broadcastTo: cannot broadcast " + Shapes.str(shape) + " to " + Shapes.str(target));
        }
        return x.view(target.clone(), st, x.offset);
    }

    static NDArray slice(NDArray x, int axis, int start, int end, int step) {
        int a = Shapes.axis(axis, x.shape.length, "slice");
        if (step < 1) throw new IllegalArgumentException("slice: step must be >= 1, got " + step);
        if (start < 0 || end > x.shape[a] || start > end)
            throw new IllegalArgumentException("slice: range [" + start + ", " + end + ") out of bounds for axis " + a
                    + " of shape " + Shapes.str(x.shape));
        int[] s = x.shape.clone();
        long[] st = x.strides.clone();
        s[a] = (end - start + step - 1) / step;
        st[a] = x.strides[a] * step;
        return x.view(s, st, x.offset + start * x.strides[a]);
    }

    static NDArray select(NDArray x, int axis, int index) {
        int a = Shapes.axis(axis, x.shape.length, "select");
        if (index < 0 || index >= x.shape[a])
            throw new IllegalArgumentException("select: index " + index + " out of bounds for axis " + a + " of shape " + Shapes.str(x.shape));
        int[] s = new int[x.shape.length - 1];
        long[] st = new long[x.shape.length - 1];
        for (int i = 0, j = 0; i < x.shape.length; i++) {
            if (i == a) continue;
            s[j] = x.shape[i];
            st[j++] = x.strides[i];
        }
        return x.view(s, st, x.offset + index * x.strides[a]);
    }

    static NDArray unsqueeze(NDArray x, int axis) {
        int a = Shapes.axis(axis, x.shape.length + 1, "unsqueeze");
        int[] s = new int[x.shape.length + 1];
        long[] st = new long[x.shape.length + 1];
        for (int i = 0, j = 0; i < s.length; i++) {
            if (i == a) { s[i] = 1; st[i] = 0; continue; }
            s[i] = x.shape[j];
            st[i] = x.strides[j++];
        }
        return x.view(s, st, x.offset);
    }

    /** The last two axes as a 2-d view when every leading axis has size 1, else null. */
    static NDArray lastTwoAxes(NDArray x) {
        int nd = x.shape.length;
        for (int i = 0; i < nd - 2; i++) if (x.shape[i] != 1) return null;
        return x.view(new int[] {x.shape[nd - 2], x.shape[nd - 1]}, new long[] {x.strides[nd - 2], x.strides[nd - 1]}, x.offset);
    }
}
