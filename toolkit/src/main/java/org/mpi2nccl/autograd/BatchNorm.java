package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/**
 * Batch normalisation of NCHW input with batch statistics (training mode): per channel,
 * {@code y = gamma * (x - mean) / sqrt(var + eps) + beta}, mean and biased variance over (N, H, W).
 * The batch mean and (unbiased) variance are kept for the module's running averages.
 */
final class BatchNorm extends Function {
    private static final int[] AXES = {0, 2, 3};
    private final float eps;
    private NDArray xhat, invStd, gamma;
    NDArray batchMean, batchVarUnbiased;

    BatchNorm(float eps) { this.eps = eps; }

    @Override
    protected NDArray forward(NDArray... in) {
        NDArray x = in[0];
        gamma = in[1];
        NDArray beta = in[2];
        if (x.ndim() != 4 || gamma.ndim() != 1 || gamma.shape(0) != x.shape(1) || !java.util.Arrays.equals(beta.shape(), gamma.shape()))
            throw new IllegalArgumentException("batchNorm2d: input " + Shapes.str(x.shape()) + ", weight " + Shapes.str(gamma.shape())
                    + " and bias " + Shapes.str(beta.shape()) + " do not fit: expected (N, C, H, W), (C,), (C,)");
        int c = x.shape(1);
        long m = x.size() / c;
        if (m < 2) throw new IllegalArgumentException("batchNorm2d: needs more than one value per channel, got input " + Shapes.str(x.shape()));
        int[] cs = {1, c, 1, 1};
        try (NDArray sum = x.reduce(org.mpi2nccl.tensor.ReduceOp.SUM, true, AXES); NDArray mean = sum.mul(1f / m);
             NDArray xc = x.sub(mean); NDArray sq = xc.square();
             NDArray sqSum = sq.reduce(org.mpi2nccl.tensor.ReduceOp.SUM, true, AXES); NDArray var = sqSum.mul(1f / m);
             NDArray ve = var.add(eps); NDArray g4 = gamma.reshape(cs); NDArray b4 = beta.reshape(cs)) {
            invStd = ve.pow(-0.5f);
            xhat = xc.mul(invStd);
            batchMean = mean.reshape(c);
            batchVarUnbiased = sqSum.mul(1f / (m - 1)).reshape(c);
            try (NDArray scaled = xhat.mul(g4)) {
                return scaled.add(b4);
            }
        }
    }

    @Override
    protected NDArray[] backward(NDArray g) {
        int c = gamma.shape(0);
        long m = g.size() / c;
        int[] cs = {1, c, 1, 1};
        NDArray dx = null, dgamma = null, dbeta = null;
        try (NDArray gx = g.mul(xhat); NDArray sumGx = gx.reduce(org.mpi2nccl.tensor.ReduceOp.SUM, true, AXES);
             NDArray sumG = g.reduce(org.mpi2nccl.tensor.ReduceOp.SUM, true, AXES)) {
            if (needsGrad(1)) dgamma = sumGx.reshape(c);
            if (needsGrad(2)) dbeta = sumG.reshape(c);
            if (needsGrad(0)) {
                // dx = gamma * invStd / m * (m * g - sum(g) - xhat * sum(g * xhat))
                try (NDArray g4 = gamma.reshape(cs); NDArray mg = g.mul((float) m); NDArray a = mg.sub(sumG);
                     NDArray b = xhat.mul(sumGx); NDArray diff = a.sub(b); NDArray k = g4.mul(invStd); NDArray k2 = k.mul(1f / m)) {
                    dx = diff.mul(k2);
                }
            }
        }
        return new NDArray[] {dx, dgamma, dbeta};
    }
}
