package org.mpi2nccl.tensor.cpu;

/** Strided copies and fills over up to 8 dimensions: an odometer over all but the last axis, a tight inner loop. */
final class StridedCopy {
    private StridedCopy() {}

    static void copy(float[] src, long srcOffset, long[] srcStrides, float[] dst, long dstOffset, long[] dstStrides, int[] shape) {
        int nd = shape.length;
        if (srcStrides.length != nd || dstStrides.length != nd)
            throw new IllegalArgumentException("copyStrided: shape " + java.util.Arrays.toString(shape) + " and strides "
                    + java.util.Arrays.toString(srcStrides) + " / " + java.util.Arrays.toString(dstStrides) + " disagree in length");
        if (nd == 0) {
            dst[(int) dstOffset] = src[(int) srcOffset];
            return;
        }
        long total = 1;
        for (int d : shape) total *= d;
        if (total == 0) return;
        int inner = shape[nd - 1];
        int rows = (int) (total / inner);
        int ss = (int) srcStrides[nd - 1], ds = (int) dstStrides[nd - 1];
        Parallel.range(rows, inner, (from, to) -> {
            int[] idx = new int[nd - 1];
            unravel(from, shape, idx);
            for (int r = from; r < to; r++) {
                long so = srcOffset, dof = dstOffset;
                for (int d = 0; d < nd - 1; d++) {
                    so += idx[d] * srcStrides[d];
                    dof += idx[d] * dstStrides[d];
                }
                int s = (int) so, o = (int) dof;
                if (ss == 1 && ds == 1) {
                    System.arraycopy(src, s, dst, o, inner);
                } else if (ss == 0) {
                    float v = src[s];
                    for (int i = 0; i < inner; i++) dst[o + i * ds] = v;
                } else {
                    for (int i = 0; i < inner; i++) dst[o + i * ds] = src[s + i * ss];
                }
                increment(idx, shape);
            }
        });
    }

    static void fill(float[] dst, long offset, long[] strides, int[] shape, float value) {
        int nd = shape.length;
        if (nd == 0) {
            dst[(int) offset] = value;
            return;
        }
        long total = 1;
        for (int d : shape) total *= d;
        if (total == 0) return;
        int inner = shape[nd - 1];
        int rows = (int) (total / inner);
        int ds = (int) strides[nd - 1];
        int[] idx = new int[nd - 1];
        for (int r = 0; r < rows; r++) {
            long o = offset;
            for (int d = 0; d < nd - 1; d++) o += idx[d] * strides[d];
            for (int i = 0; i < inner; i++) dst[(int) o + i * ds] = value;
            increment(idx, shape);
        }
    }

    /** The multi-index (over the first nd-1 axes) of row number {@code row}. */
    private static void unravel(int row, int[] shape, int[] idx) {
        for (int d = idx.length - 1; d >= 0; d--) {
            idx[d] = row % shape[d];
            row /= shape[d];
        }
    }

    private static void increment(int[] idx, int[] shape) {
        for (int d = idx.length - 1; d >= 0; d--) {
            if (++idx[d] < shape[d]) return;
            idx[d] = 0;
        }
    }
}
