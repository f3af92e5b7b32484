package org.mpi2nccl.tensor;

import java.util.Arrays;

/** Shape arithmetic shared by arrays and ops: sizes, row-major strides, broadcasting, readable errors. */
public final class Shapes {
    private Shapes() {}

    public static long size(int[] shape) {
        long n = 1;
        for (int d : shape) n *= d;
        return n;
    }

    /** Row-major (C order) strides of a compact array of this shape. */
    public static long[] rowMajorStrides(int[] shape) {
        long[] s = new long[shape.length];
        long step = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            s[i] = step;
            step *= shape[i];
        }
        return s;
    }

    /** "(2, 3)" — how every error message prints a shape. */
    public static String str(int[] shape) {
        StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < shape.length; i++) {
            if (i > 0) b.append(", ");
            b.append(shape[i]);
        }
        if (shape.length == 1) b.append(',');
        return b.append(')').toString();
    }

    /** NumPy broadcasting of two shapes; the error names the op and both shapes. */
    public static int[] broadcast(int[] a, int[] b, String op) {
        int n = Math.max(a.length, b.length);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            int da = i < n - a.length ? 1 : a[i - (n - a.length)];
            int db = i < n - b.length ? 1 : b[i - (n - b.length)];
            if (da != db && da != 1 && db != 1) {
                throw new IllegalArgumentException(op + ": shapes " + str(a) + " and " + str(b)
                        + " cannot be broadcast together (dimension " + i + ": " + da + " vs " + db + ")");
            }
            out[i] = da == 1 ? db : da;
        }
        return out;
    }

    /** Normalises an axis (negative counts from the end) and checks it. */
    public static int axis(int axis, int ndim, String op) {
        int a = axis < 0 ? axis + ndim : axis;
        if (a < 0 || a >= ndim)
            throw new IllegalArgumentException(op + ": axis " + axis + " out of range for " + ndim + "-d array");
        return a;
    }

    /** Sorted, distinct, normalised axes; an empty list means all axes. */
    public static int[] axes(int[] axes, int ndim, String op) {
        if (axes == null || axes.length == 0) {
            int[] all = new int[ndim];
            for (int i = 0; i < ndim; i++) all[i] = i;
            return all;
        }
        int[] out = new int[axes.length];
        for (int i = 0; i < axes.length; i++) out[i] = axis(axes[i], ndim, op);
        Arrays.sort(out);
        for (int i = 1; i < out.length; i++)
            if (out[i] == out[i - 1]) throw new IllegalArgumentException(op + ": axis " + out[i] + " given twice");
        return out;
    }

    public static void checkShape(int[] shape, String op) {
        for (int d : shape)
            if (d < 0) throw new IllegalArgumentException(op + ": negative dimension in shape " + str(shape));
        if (shape.length > 8) throw new IllegalArgumentException(op + ": at most 8 dimensions, got " + str(shape));
        if (size(shape) > Integer.MAX_VALUE - 8)
            throw new IllegalArgumentException(op + ": shape " + str(shape) + " has more than 2^31 elements");
    }

    /** Checks that {@code from} broadcasts to exactly {@code to} and returns {@code to}; the error names the op. */
    public static int[] broadcastTarget(int[] from, int[] to, String op) {
        int[] b = broadcast(from, to, op);
        if (!Arrays.equals(b, to))
            throw new IllegalArgumentException(op + ": shape " + str(from) + " cannot be broadcast to " + str(to));
        return to;
    }

    /**
     * Merges adjacent axes that every strided view walks contiguously (stride[i] == stride[i+1] * shape[i+1]
     * for all views), and drops size-1 axes: the same elements in fewer, longer rows. Returns the new shape
     * and writes the new strides into {@code stridesOut[v]} (one row per view).
     */
    public static int[] coalesce(int[] shape, long[][] strides, long[][] stridesOut) {
        int nd = shape.length, views = strides.length;
        int[] s = new int[Math.max(nd, 1)];
        long[][] st = new long[views][Math.max(nd, 1)];
        int k = 0;
        for (int i = 0; i < nd; i++) {
            if (shape[i] == 1) continue;
            boolean merge = k > 0;
            for (int v = 0; merge && v < views; v++) merge = st[v][k - 1] == strides[v][i] * shape[i];
            if (merge) {
                s[k - 1] *= shape[i];
                for (int v = 0; v < views; v++) st[v][k - 1] = strides[v][i];
            } else {
                s[k] = shape[i];
                for (int v = 0; v < views; v++) st[v][k] = strides[v][i];
                k++;
            }
        }
        if (k == 0 && size(shape) == 1) { // a single element: keep one axis
            s[0] = 1;
            k = 1;
            for (int v = 0; v < views; v++) st[v][0] = 1;
        }
        for (int v = 0; v < views; v++) stridesOut[v] = Arrays.copyOf(st[v], k);
        return Arrays.copyOf(s, k);
    }
}
