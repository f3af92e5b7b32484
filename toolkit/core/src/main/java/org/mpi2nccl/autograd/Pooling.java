package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.ConvGeometry;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/** 2-D max-pooling of NCHW input; the gradient goes to each window's maximum. */
final class Pooling extends Function {
    private final int kernel, stride, pad;
    private ConvGeometry geometry;
    private NDArray x;

    Pooling(int kernel, int stride, int pad) {
        this.kernel = kernel;
        this.stride = stride;
        this.pad = pad;
    }

    @Override
    protected NDArray forward(NDArray... in) {
        if (in[0].ndim() != 4)
            throw new IllegalArgumentException("maxPool2d: input must be (N, C, H, W), got " + Shapes.str(in[0].shape()));
        x = in[0].compact();
        int[] s = x.shape();
        geometry = new ConvGeometry(s[0], s[1], s[2], s[3], kernel, kernel, stride, pad);
        NDArray out = NDArray.empty(x.device(), s[0], s[1], geometry.outH(), geometry.outW());
        x.backend().maxPool2d(x.storage(), out.storage(), geometry);
        return out;
    }

    @Override
    protected NDArray[] backward(NDArray g) {
        NDArray dx = NDArray.empty(g.device(), x.shape());
        try (NDArray gc = g.compact()) {
            g.backend().maxPool2dBackward(x.storage(), gc.storage(), dx.storage(), geometry);
        }
        return new NDArray[] {dx};
    }
}
