package org.mpi2nccl.tensor;

import java.util.Arrays;

/** {@link NDArray#stack} and {@link NDArray#concat}: a new array filled view by view with {@link NDArray#assign}. */
final class ArrayJoins {
    private ArrayJoins() {}

    static NDArray stack(int axis, NDArray... arrays) {
        if (arrays.length == 0) throw new IllegalArgumentException("stack: no arrays given");
        int[] s0 = arrays[0].shape;
        for (NDArray a : arrays)
            if (!Arrays.equals(a.shape, s0))
                throw new IllegalArgumentException("stack: shapes " + Shapes.str(s0) + " and " + Shapes.str(a.shape) + " differ");
        int ax = Shapes.axis(axis, s0.length + 1, "stack");
        int[] s = new int[s0.length + 1];
        for (int i = 0, j = 0; i < s.length; i++) s[i] = i == ax ? arrays.length : s0[j++];
        NDArray out = NDArray.empty(arrays[0].device(), s);
        for (int i = 0; i < arrays.length; i++) {
            try (NDArray dst = out.select(ax, i)) {
                dst.assign(arrays[i]);
            }
        }
        return out;
    }

    static NDArray concat(int axis, NDArray... arrays) {
        if (arrays.length == 0) throw new IllegalArgumentException("concat: no arrays given");
        int[] s0 = arrays[0].shape;
        int ax = Shapes.axis(axis, s0.length, "concat");
        int total = 0;
        for (NDArray a : arrays) {
            boolean ok = a.shape.length == s0.length;
            for (int i = 0; ok && i < s0.length; i++) ok = i == ax || a.shape[i] == s0[i];
            if (!ok)
                throw new IllegalArgumentException("concat: shapes " + Shapes.str(s0) + " and " + Shapes.str(a.shape)
                        + " differ outside axis " + ax);
            total += a.shape[ax];
        }
        int[] s = s0.clone();
        s[ax] = total;
        NDArray out = NDArray.empty(arrays[0].device(), s);
        int at = 0;
        for (NDArray a : arrays) {
            try (NDArray dst = out.slice(ax, at, at + a.shape[ax])) {
                dst.assign(a);
            }
            at += a.shape[ax];
        }
        return out;
    }
}
