package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Functions;
import org.mpi2nccl.autograd.Tensor;

/** Max-pooling with a square window. */
public final class MaxPool2d extends Module {
    private final int kernel, stride, padding;

    public MaxPool2d(int kernel) { this(kernel, kernel, 0); }

    public MaxPool2d(int kernel, int stride, int padding) {
        this.kernel = kernel;
        this.stride = stride;
        this.padding = padding;
    }

    @Override
    public Tensor forward(Tensor x) { return Functions.maxPool2d(x, kernel, stride, padding); }

    /** A 2x2 window moved by 2 without padding: the pooling {@link FusedBlocks} can fuse. */
    boolean isTwoByTwo() { return kernel == 2 && stride == 2 && padding == 0; }

    @Override
    protected String describe() { return "MaxPool2d(" + kernel + ", stride " + stride + ")"; }
}
