package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/**
 * Batch normalisation of NCHW input with batch statistics (training mode): per channel,
 * {@code y = gamma * (x - mean) / sqrt(var + eps) + beta}, mean and biased variance over (N, H, W).
 * One backend call each way ({@link Backend#batchNormForward}, {@link Backend#batchNormBackward}): on a GPU that
 * is two kernels each way, where composing the elementwise primitives took about twenty launches and ten
 * temporaries per layer. Forward keeps the input, the mean and 1/sqrt(var + eps) for backward; given running
 * averages, it updates them in the same call (the unbiased variance, PyTorch's convention).
 */
final class BatchNorm extends Function {
    private final float eps, momentum;
    private final NDArray runningMean, runningVar;
    private NDArray x, gamma, mean, invStd;
    private int outer, channels, inner;

    /** {@code runningMean}/{@code runningVar} null: no running averages to update. */
    BatchNorm(float eps, NDArray runningMean, NDArray runningVar, float momentum) {
        this.eps = eps;
        this.runningMean = runningMean;
        this.runningVar = runningVar;
        this.momentum = momentum;
    }

    @Override
    protected NDArray forward(NDArray... in) {
        NDArray beta = in[2];
        if (in[0].ndim() != 4 || in[1].ndim() != 1 || in[1].shape(0) != in[0].shape(1) || !java.util.Arrays.equals(beta.shape(), in[1].shape()))
            throw new IllegalArgumentException("batchNorm2d: input " + Shapes.str(in[0].shape()) + ", weight " + Shapes.str(in[1].shape())
                    + " and bias " + Shapes.str(beta.shape()) + " do not fit: expected (N, C, H, W), (C,), (C,)");
        outer = in[0].shape(0);
        channels = in[0].shape(1);
        inner = in[0].shape(2) * in[0].shape(3);
        if ((long) outer * inner < 2)
            throw new IllegalArgumentException("batchNorm2d: needs more than one value per channel, got input " + Shapes.str(in[0].shape()));
        if (runningMean != null && (runningMean.size() != channels || runningVar.size() != channels
                || !runningMean.isCompact() || !runningVar.isCompact() || !runningMean.device().equals(in[0].device())))
            throw new IllegalArgumentException("batchNorm2d: running averages of shape " + Shapes.str(runningMean.shape()) + " and "
                    + Shapes.str(runningVar.shape()) + " do not fit " + channels + " channels on " + in[0].device()
                    + " (expected compact (" + channels + ",) arrays on the input's device)");
        Backend be = in[0].backend();
        x = in[0].compact();
        gamma = in[1].compact();
        mean = NDArray.empty(x.device(), channels);
        invStd = NDArray.empty(x.device(), channels);
        NDArray out = NDArray.empty(x.device(), x.shape());
        try (NDArray b = beta.compact()) {
            be.batchNormForward(x.storage(), gamma.storage(), b.storage(), out.storage(), mean.storage(), invStd.storage(),
                    runningMean == null ? null : runningMean.storage(), runningVar == null ? null : runningVar.storage(),
                    outer, channels, inner, eps, momentum);
        }
        return out;
    }

    @Override
    protected NDArray[] backward(NDArray dy) {
        NDArray dx = needsGrad(0) ? NDArray.empty(dy.device(), x.shape()) : null;
        NDArray dgamma = NDArray.empty(dy.device(), channels), dbeta = NDArray.empty(dy.device(), channels);
        try (NDArray g = dy.compact()) {
            dy.backend().batchNormBackward(g.storage(), x.storage(), mean.storage(), invStd.storage(), gamma.storage(),
                    dx == null ? null : dx.storage(), dgamma.storage(), dbeta.storage(), outer, channels, inner);
        }
        return new NDArray[] {dx, needsGrad(1) ? dgamma : close(dgamma), needsGrad(2) ? dbeta : close(dbeta)};
    }

    private static NDArray close(NDArray a) {
        a.close();
        return null;
    }
}
