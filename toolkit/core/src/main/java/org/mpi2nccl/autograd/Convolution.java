package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.ConvGeometry;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/**
 * 2-D convolution (cross-correlation, as in PyTorch) of x (N, C, H, W) with weights (OC, C, KH, KW) by
 * im2col + GEMM: the patches of a group of GS samples become one (C*KH*KW, GS*OH*OW) matrix, and the output of the
 * group is W (OC, C*KH*KW) times it. Backward: dW = sum over groups of dY[group] cols[group]^T;
 * dcols = W^T dY[group], folded back into dX by col2im.
 *
 * <p>With one sample a group (the CPU's choice) a group's product is already that sample's NCHW output. A GPU
 * takes wider groups ({@link Backend#convolutionGroup}): a few large GEMMs instead of one per sample, and a sum of a
 * few products for dW instead of one per sample; the output, laid out (group, OC, sample, pixel), is reordered to
 * NCHW by one copy, and the incoming gradient the other way.
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
        Backend be = x.backend();
        ConvGeometry one = new ConvGeometry(x.shape(0), x.shape(1), x.shape(2), x.shape(3), weight.shape(2), weight.shape(3), stride, pad);
        geometry = one.withGroup(be.convolutionGroup(one));
        int groups = geometry.groups(), oc = weight.shape(0), rows = geometry.colRows(), width = geometry.groupCols();
        cols = NDArray.empty(x.device(), groups, rows, width);
        try (NDArray xc = x.compact(); NDArray w = weight.compact()) {
            be.im2col(xc.storage(), cols.storage(), geometry);
            if (geometry.group() == 1) {
                NDArray out = NDArray.empty(x.device(), geometry.n(), oc, geometry.outH(), geometry.outW());
                be.matmul(w.storage(), cols.storage(), out.storage(), groups, oc, width, rows, false, false, 0, (long) rows * width);
                return out;
            }
            try (NDArray grouped = NDArray.empty(x.device(), groups, oc, width)) {
                be.matmul(w.storage(), cols.storage(), grouped.storage(), groups, oc, width, rows, false, false, 0, (long) rows * width);
                try (NDArray nchw = swapped(grouped, oc, geometry.group())) {
                    return nchw.reshape(geometry.n(), oc, geometry.outH(), geometry.outW());
                }
            }
        }
    }

    /** The compact (groups, a * b * pixels) array {@code a} reordered as (groups, b, a, pixels): a compact copy. */
    private NDArray swapped(NDArray a, int first, int second) {
        try (NDArray split = a.reshape(geometry.groups(), first, second, geometry.colCols()); NDArray view = split.permute(0, 2, 1, 3)) {
            return view.compact();
        }
    }

    @Override
    protected NDArray[] backward(NDArray g) {
        Backend be = g.backend();
        int groups = geometry.groups(), oc = weight.shape(0), rows = geometry.colRows(), width = geometry.groupCols();
        NDArray dx = null, dw = null;
        try (NDArray gc = groupedGradient(g, oc); NDArray w = weight.compact()) {
            if (needsGrad(0)) {
                try (NDArray dcols = NDArray.empty(g.device(), groups, rows, width)) {
                    // dcols[group] (rows x width) = W^T (rows x oc) * dY[group] (oc x width)
                    be.matmul(w.storage(), gc.storage(), dcols.storage(), groups, rows, width, oc, true, false, 0, (long) oc * width);
                    dx = NDArray.empty(g.device(), geometry.n(), geometry.c(), geometry.h(), geometry.w());
                    be.col2im(dcols.storage(), dx.storage(), geometry);
                }
            }
            if (needsGrad(1)) {
                // per-group dW[group] (oc x rows) = dY[group] (oc x width) * cols[group]^T, then summed over groups
                try (NDArray per = NDArray.empty(g.device(), groups, oc, rows)) {
                    be.matmul(gc.storage(), cols.storage(), per.storage(), groups, oc, rows, width, false, true, (long) oc * width, (long) rows * width);
                    try (NDArray s = per.sum(0)) {
                        dw = s.reshape(weight.shape());
                    }
                }
            }
        }
        return new NDArray[] {dx, dw};
    }

    /** The output's gradient laid out as the forward's GEMMs wrote the output: compact (groups, oc, group * pixels). */
    private NDArray groupedGradient(NDArray g, int oc) {
        if (geometry.group() == 1) return g.compact();
        try (NDArray gc = g.compact()) {
            return swapped(gc, geometry.group(), oc);
        }
    }
}
