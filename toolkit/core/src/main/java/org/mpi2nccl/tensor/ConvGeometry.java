package org.mpi2nccl.tensor;

/**
 * The shape of a 2-D convolution or pooling window over an NCHW input: batch {@code n}, channels {@code c},
 * height {@code h}, width {@code w}, a {@code kh x kw} window moved by {@code stride}, with {@code pad} zero
 * (convolution) or -infinity (max-pool) pixels on every side. For im2col, {@code group} samples are unfolded side
 * by side into one column matrix ({@link #groupCols()} wide; {@code n} a multiple of it; 1 for everything else).
 */
public record ConvGeometry(int n, int c, int h, int w, int kh, int kw, int stride, int pad, int group) {

    public ConvGeometry {
        if (n < 1 || c < 1 || h < 1 || w < 1 || kh < 1 || kw < 1 || stride < 1 || pad < 0)
            throw new IllegalArgumentException("bad convolution geometry " + describe(n, c, h, w, kh, kw, stride, pad));
        if (group < 1 || n % group != 0)
            throw new IllegalArgumentException("column groups of " + group + " samples do not divide the batch of " + n
                    + " in " + describe(n, c, h, w, kh, kw, stride, pad));
        if (h + 2 * pad < kh || w + 2 * pad < kw)
            throw new IllegalArgumentException("window " + kh + "x" + kw + " larger than the padded input "
                    + (h + 2 * pad) + "x" + (w + 2 * pad) + " in " + describe(n, c, h, w, kh, kw, stride, pad));
    }

    /** One sample a column group. */
    public ConvGeometry(int n, int c, int h, int w, int kh, int kw, int stride, int pad) {
        this(n, c, h, w, kh, kw, stride, pad, 1);
    }

    /** The same window with {@code samples} samples a column group. */
    public ConvGeometry withGroup(int samples) {
        return new ConvGeometry(n, c, h, w, kh, kw, stride, pad, samples);
    }

    /** Column groups: {@code n / group}. */
    public int groups() { return n / group; }

    /** Columns of one group's column matrix: {@code group * outH * outW}. */
    public int groupCols() { return group * colCols(); }

    public int outH() { return (h + 2 * pad - kh) / stride + 1; }

    public int outW() { return (w + 2 * pad - kw) / stride + 1; }

    /** Rows of one sample's column matrix: {@code c * kh * kw}. */
    public int colRows() { return c * kh * kw; }

    /** Columns of one sample's column matrix: {@code outH * outW}. */
    public int colCols() { return outH() * outW(); }

    public long inputSize() { return (long) n * c * h * w; }

    @Override
    public String toString() {
        return describe(n, c, h, w, kh, kw, stride, pad) + (group == 1 ? "" : ", column groups of " + group + " samples");
    }

    private static String describe(int n, int c, int h, int w, int kh, int kw, int stride, int pad) {
        return "input (" + n + ", " + c + ", " + h + ", " + w + "), window " + kh + "x" + kw
                + ", stride " + stride + ", padding " + pad;
    }
}
