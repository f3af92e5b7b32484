package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/**
 * Batch normalisation of NCHW input with batch statistics (training mode): per channel,
 * {@code y = gamma * (x - mean) / sqrt(var + eps) + beta}, mean and biased variance over (N, H, W).
 * Two passes over the activations each way through the backend's per-channel primitives:
 * forward {@code channelSums(x, x)} then {@code channelAffine}; backward {@code channelSums(dy, xhat)} then
 * {@code dx = dy * k + xhat * (-k sum(dy xhat) / m) - k sum(dy) / m} with {@code k = gamma / sqrt(var + eps)}.
 * The batch mean and unbiased variance are kept for the module's running averages.
 */
final class BatchNorm extends Function {
    private final float eps;
    private NDArray xhat, invStd, gamma;
    private long outer, channels, inner;
    NDArray batchMean, batchVarUnbiased;

    BatchNorm(float eps) { this.eps = eps; }

    @Override
    protected NDArray forward(NDArray... in) {
        gamma = in[1];
        NDArray beta = in[2];
        if (in[0].ndim() != 4 || gamma.ndim() != 1 || gamma.shape(0) != in[0].shape(1) || !java.util.Arrays.equals(beta.shape(), gamma.shape()))
            throw new IllegalArgumentException("batchNorm2d: input " + Shapes.str(in[0].shape()) + ", weight " + Shapes.str(gamma.shape())
                    + " and bias " + Shapes.str(beta.shape()) + " do not fit: expected (N, C, H, W), (C,), (C,)");
        int c = in[0].shape(1);
        outer = in[0].shape(0);
        channels = c;
        inner = (long) in[0].shape(2) * in[0].shape(3);
        long m = outer * inner;
        if (m < 2) throw new IllegalArgumentException("batchNorm2d: needs more than one value per channel, got input " + Shapes.str(in[0].shape()));
        Backend be = in[0].backend();
        try (NDArray x = in[0].compact(); NDArray sum = NDArray.empty(x.device(), c); NDArray sumSq = NDArray.empty(x.device(), c);
             NDArray g = gamma.compact(); NDArray b = beta.compact()) {
            be.channelSums(x.storage(), x.storage(), sum.storage(), sumSq.storage(), outer, channels, inner);
            batchMean = sum.mul(1f / m);
            try (NDArray meanSq = batchMean.square(); NDArray ex2 = sumSq.mul(1f / m); NDArray diff = ex2.sub(meanSq);
                 NDArray var = diff.maximum(0f); NDArray ve = var.add(eps);
                 NDArray negMean = batchMean.neg()) {
                invStd = ve.pow(-0.5f);
                batchVarUnbiased = var.mul((float) m / (m - 1));
                try (NDArray shift = negMean.mul(invStd)) {
                    xhat = NDArray.empty(x.device(), x.shape());
                    be.channelAffine(x.storage(), invStd.storage(), null, null, shift.storage(), xhat.storage(), outer, channels, inner);
                }
            }
            NDArray out = NDArray.empty(x.device(), x.shape());
            be.channelAffine(xhat.storage(), g.storage(), null, null, b.storage(), out.storage(), outer, channels, inner);
            return out;
        }
    }

    @Override
    protected NDArray[] backward(NDArray dy) {
        Backend be = dy.backend();
        long m = outer * inner;
        NDArray dx = null, dgamma, dbeta;
        try (NDArray g = dy.compact()) {
            NDArray sumG = NDArray.empty(g.device(), (int) channels), sumGx = NDArray.empty(g.device(), (int) channels);
            be.channelSums(g.storage(), xhat.storage(), sumG.storage(), sumGx.storage(), outer, channels, inner);
            if (needsGrad(0)) {
                try (NDArray k = gamma.mul(invStd); NDArray kx0 = k.mul(sumGx); NDArray kx = kx0.mul(-1f / m);
                     NDArray s0 = k.mul(sumG); NDArray shift = s0.mul(-1f / m)) {
                    dx = NDArray.empty(g.device(), g.shape());
                    be.channelAffine(g.storage(), k.storage(), xhat.storage(), kx.storage(), shift.storage(), dx.storage(),
                            outer, channels, inner);
                }
            }
            dgamma = sumGx;
            dbeta = sumG;
        }
        return new NDArray[] {dx, needsGrad(1) ? dgamma : close(dgamma), needsGrad(2) ? dbeta : close(dbeta)};
    }

    private static NDArray close(NDArray a) {
        a.close();
        return null;
    }
}
