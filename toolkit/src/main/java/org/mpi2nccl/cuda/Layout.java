package org.mpi2nccl.cuda;

import java.util.Arrays;

/**
 * A strided view of a float buffer, as the kernels' {@code Layout} struct (native/common.cuh): element
 * (i0..i{n-1}) lives at {@code offset + sum(i_d * stride_d)} (in elements). Broadcasting is stride 0.
 * At most {@value #MAX_DIMS} dimensions.
 */
public record Layout(long[] shape, long[] strides, long offset) {
    public static final int MAX_DIMS = 8;

    public Layout {
        if (shape.length != strides.length) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " and strides "
                    + Arrays.toString(strides) + " differ in length");
        }
        if (shape.length > MAX_DIMS) {
            throw new IllegalArgumentException("the CUDA kernels take at most " + MAX_DIMS + " dimensions, got shape "
                    + Arrays.toString(shape) + "; reshape the array to fewer dimensions first");
        }
        for (long s : shape) {
            if (s < 0) throw new IllegalArgumentException("negative extent in shape " + Arrays.toString(shape));
        }
        shape = shape.clone();
        strides = strides.clone();
    }

    /** The row-major contiguous layout of a shape. */
    public static Layout contiguous(long... shape) {
        long[] strides = new long[shape.length];
        long s = 1;
        for (int d = shape.length - 1; d >= 0; d--) {
            strides[d] = s;
            s *= shape[d];
        }
        return new Layout(shape, strides, 0);
    }

    /** Number of elements. */
    public long size() {
        long n = 1;
        for (long s : shape) n *= s;
        return n;
    }

    /** The struct bytes as longs: ndim, offset, shape[8], stride[8]. */
    long[] toParam() {
        long[] p = new long[2 + 2 * MAX_DIMS];
        p[0] = shape.length;
        p[1] = offset;
        System.arraycopy(shape, 0, p, 2, shape.length);
        System.arraycopy(strides, 0, p, 2 + MAX_DIMS, strides.length);
        return p;
    }

    /**
     * Smallest and largest element offset this layout touches (for bounds checks against a buffer),
     * or {0, -1} when it has no elements.
     */
    public long[] offsetRange() {
        if (size() == 0) return new long[] {0, -1};
        long lo = offset, hi = offset;
        for (int d = 0; d < shape.length; d++) {
            long reach = (shape[d] - 1) * strides[d];
            if (reach < 0) lo += reach;
            else hi += reach;
        }
        return new long[] {lo, hi};
    }

    @Override
    public String toString() {
        return "Layout" + Arrays.toString(shape) + " strides " + Arrays.toString(strides) + " offset " + offset;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Layout l && Arrays.equals(shape, l.shape) && Arrays.equals(strides, l.strides)
                && offset == l.offset;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(shape) * 31 + Arrays.hashCode(strides) + Long.hashCode(offset);
    }
}
