package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.ConvGeometry;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/**
 * 2-D convolution (cross-correlation, as in PyTorch) of x (N, C, H, W) with weights (OC, C, KH, KW) by
 * im2col + GEMM: each sample's patches become a (C*KH*KW, OH*OW) matrix and the output is
 * W (OC, C*KH*KW) times it, already in NCHW order. Backward: dW = sum over samples of dY[s] cols[s]^T;
 * dcols = W^T dY[s], folded back into dX by col2im.
 */
final class Convolution extends Function {
    private final int stride, pad;
    private ConvGeometry geometry;
    private NDArray cols, weight;

    Convolution(int stride, int pad) {
        this.stride = stride;
        this.pad = pad;
    }

    @Override
    protected NDArray forward(NDArray... in) {
        NDArray x = in[0];
        weight = in[1];
        if (x.ndim() != 4 || weight.ndim() != 4 || x.shape(1) != weight.shape(1))
            throw new IllegalArgumentException("conv2d: input " + Shapes.str(x.shape()) + " and weight " + Shapes.str(weight.shape())
                    + " do not fit: expected input (N, C, H, W) and weight (out channels, C, KH, KW)");
        geometry = new ConvGeometry(x.shape(0), x.shape(1), x.shape(2), x.shape(3), weight.shape(2), weight.shape(3), stride, pad);
        Backend be = x.backend();
        int n = geometry.n(), oc = weight.shape(0), rows = geometry.colRows(), ncols = geometry.colCols();
        cols = NDArray.empty(x.device(), n, rows, ncols);
        try (NDArray xc = x.compact(); NDArray w = weight.compact()) {
            be.im2col(xc.storage(), cols.storage(), geometry);
            NDArray out = NDArray.empty(x.device(), n, oc, geometry.outH(), geometry.outW());
            be.matmul(w.storage(), cols.storage(), out.storage(), n, oc, ncols, rows, false, false, 0, (long) rows * ncols);
            return out;
        }
    }

    @Override
    protected NDArray[] backward(NDArray g) {
        Backend be = g.backend();
        int n = geometry.n(), oc = weight.shape(0), rows = geometry.colRows(), ncols = geometry.colCols();
        NDArray dx = null, dw = null;
        try (NDArray gc = g.compact(); NDArray w = weight.compact()) {
            if (needsGrad(0)) {
                try (NDArray dcols = NDArray.empty(g.device(), n, rows, ncols)) {
                    // dcols[s] (rows x ncols) = W^T (rows x oc) * dY[s] (oc x ncols)
                    be.matmul(w.storage(), gc.storage(), dcols.storage(), n, rows, ncols, oc, true, false, 0, (long) oc * ncols);
                    dx = NDArray.empty(g.device(), geometry.n(), geometry.c(), geometry.h(), geometry.w());
                    be.col2im(dcols.storage(), dx.storage(), geometry);
                }
            }
            if (needsGrad(1)) {
                // per-sample dW[s] (oc x rows) = dY[s] (oc x ncols) * cols[s]^T, then summed over samples
                try (NDArray per = NDArray.empty(g.device(), n, oc, rows)) {
                    be.matmul(gc.storage(), cols.storage(), per.storage(), n, oc, rows, ncols, false, true, (long) oc * ncols, (long) rows * ncols);
                    try (NDArray s = per.sum(0)) {
                        dw = s.reshape(weight.shape());
                    }
                }
            }
        }
        return new NDArray[] {dx, dw};
    }
}
