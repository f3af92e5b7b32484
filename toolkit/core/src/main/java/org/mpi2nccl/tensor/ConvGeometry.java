package org.mpi2nccl.tensor;

/**
 * The shape of a 2-D convolution or pooling window over an NCHW input: batch {@code n}, channels {@code c},
 * height {@code h}, width {@code w}, a {@code kh x kw} window moved by {@code stride}, with {@code pad} zero
 * (convolution) or -infinity (max-pool) pixels on every side.
 */
public record ConvGeometry(int n, int c, int h, int w, int kh, int kw, int stride, int pad) {

    public ConvGeometry {
        if (n < 1 || c < 1 || h < 1 || w < 1 || kh < 1 || kw < 1 || stride < 1 || pad < 0)
            throw new IllegalArgumentException("bad convolution geometry " + describe(n, c, h, w, kh, kw, stride, pad));
        if (h + 2 * pad < kh || w + 2 * pad < kw)
            throw new IllegalArgumentException("window " + kh + "x" + kw + " larger than the padded input "
                    + (h + 2 * pad) + "x" + (w + 2 * pad) + " in " + describe(n, c, h, w, kh, kw, stride, pad));
    }

    public int outH() { return (h + 2 * pad - kh) / stride + 1; }

    public int outW() { return (w + 2 * pad - kw) / stride + 1; }

    /** Rows of one sample's column matrix: {@code c * kh * kw}. */
    public int colRows() { return c * kh * kw; }

    /** Columns of one sample's column matrix: {@code outH * outW}. */
    public int colCols() { return outH() * outW(); }

    public long inputSize() { return (long) n * c * h * w; }

    @Override
    public String toString() { return describe(n, c, h, w, kh, kw, stride, pad); }

    private static String describe(int n, int c, int h, int w, int kh, int kw, int stride, int pad) {
        return "input (" + n + ", " + c + ", " + h + ", " + w + "), window " + kh + "x" + kw
                + ", stride " + stride + ", padding " + pad;
    }
}
