package org.mpi2nccl.tensor;

/**
 * The block that follows each convolution of the lessons' CNN, batch norm (training) - ReLU - 2x2 max pooling with
 * stride 2, as the {@link Backend} calls it is made of: what {@link Backend#batchNormReluPoolForward} and its
 * backward must equal, and their default where a backend has no fused kernels. The input's height and width must be
 * even, so that every pixel lies in exactly one window.
 */
public final class BatchNormReluPool {
    private BatchNormReluPool() {}

    /** The pooling's geometry for an NCHW input of this shape; refuses an odd height or width, saying what to use. */
    public static ConvGeometry pooling(long n, long c, long h, long w) {
        if (h < 2 || w < 2 || h % 2 != 0 || w % 2 != 0 || n * c * h * w > Integer.MAX_VALUE)
            throw new IllegalArgumentException("batch norm - ReLU - 2x2 max pool: needs an even height and width (every pixel in one"
                    + " window), got (" + n + ", " + c + ", " + h + ", " + w + "); run the three layers one by one for this shape");
        return new ConvGeometry((int) n, (int) c, (int) h, (int) w, 2, 2, 2, 0);
    }

    static void composedForward(Backend be, Storage x, Storage gamma, Storage beta, Storage out, Storage saveMean,
                                Storage saveInvStd, Storage runningMean, Storage runningVar,
                                long n, long c, long h, long w, float eps, float momentum) {
        ConvGeometry g = pooling(n, c, h, w);
        long size = g.inputSize();
        try (Storage z = be.allocate(size); Storage r = be.allocate(size)) {
            be.batchNormForward(x, gamma, beta, z, saveMean, saveInvStd, runningMean, runningVar, n, c, h * w, eps, momentum);
            be.unary(UnaryOp.RELU, z, r, size);
            be.maxPool2d(r, out, g);
        }
    }

    static void composedBackward(Backend be, Storage dy, Storage x, Storage saveMean, Storage saveInvStd, Storage gamma,
                                 Storage beta, Storage dx, Storage dgamma, Storage dbeta, long n, long c, long h, long w) {
        ConvGeometry g = pooling(n, c, h, w);
        long size = g.inputSize(), hw = h * w;
        try (Storage k = be.allocate(c); Storage z = be.allocate(size); Storage r = be.allocate(size); Storage grad = be.allocate(size)) {
            // z = (x - mean) * (invstd * gamma) + beta, in the order the batch norm's forward computes it
            be.binary(BinaryOp.MUL, saveInvStd, gamma, k, c);
            be.binaryBroadcast(BinaryOp.SUB, x, saveMean, z, n, c, hw);
            be.binaryBroadcast(BinaryOp.MUL, z, k, r, n, c, hw);
            be.binaryBroadcast(BinaryOp.ADD, r, beta, z, n, c, hw);
            be.unary(UnaryOp.RELU, z, r, size);
            be.maxPool2dBackward(r, dy, grad, g);
            be.reluBackward(z, grad, grad, size);
            be.batchNormBackward(grad, x, saveMean, saveInvStd, gamma, dx, dgamma, dbeta, n, c, hw);
        }
    }
}
