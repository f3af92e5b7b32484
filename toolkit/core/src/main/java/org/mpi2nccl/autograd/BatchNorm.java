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
        checkInputs("batchNorm2d", in[0], in[1], beta, runningMean, runningVar);
        outer = in[0].shape(0);
        channels = in[0].shape(1);
        inner = in[0].shape(2) * in[0].shape(3);
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

    /**
     * The checks of a training-mode batch norm's inputs (this function's and {@link FusedBatchNormReluPool}'s): NCHW
     * x with per-channel weight and bias, more than one value per channel, running averages (null, or compact arrays
     * of one value per channel on x's device). {@code op} names the function in the message.
     */
    static void checkInputs(String op, NDArray x, NDArray gamma, NDArray beta, NDArray runningMean, NDArray runningVar) {
        if (x.ndim() != 4 || gamma.ndim() != 1 || gamma.shape(0) != x.shape(1) || !java.util.Arrays.equals(beta.shape(), gamma.shape()))
            throw new IllegalArgumentException(op + ": input " + Shapes.str(x.shape()) + ", weight " + Shapes.str(gamma.shape())
                    + " and bias " + Shapes.str(beta.shape()) + " do not fit: expected (N, C, H, W), (C,), (C,)");
        int channels = x.shape(1);
        if ((long) x.shape(0) * x.shape(2) * x.shape(3) < 2)
            throw new IllegalArgumentException(op + ": needs more than one value per channel, got input " + Shapes.str(x.shape()));
        if (runningMean != null && (runningMean.size() != channels || runningVar.size() != channels
                || !runningMean.isCompact() || !runningVar.isCompact() || !runningMean.device().equals(x.device())))
            throw new IllegalArgumentException(op + ": running averages of shape " + Shapes.str(runningMean.shape()) + " and "
                    + Shapes.str(runningVar.shape()) + " do not fit " + channels + " channels on " + x.device()
                    + " (expected compact (" + channels + ",) arrays on the input's device)");
    }

    private static NDArray close(NDArray a) {
        a.close();
        return null;
    }
}
