package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.BatchNormReluPool;
import org.mpi2nccl.tensor.NDArray;

/**
 * Batch norm with batch statistics, ReLU and 2x2 max pooling with stride 2 as one function of (x, gamma, beta): the
 * same values and gradients as {@link BatchNorm}, {@code relu} and {@link Pooling} one after the other, in one
 * backend call each way ({@link Backend#batchNormReluPoolForward}). Between forward and backward it keeps x and the
 * two per-channel statistics where the three functions keep three arrays of x's size: backward recomputes the rest.
 * nn.Sequential uses it for a BatchNorm2d - ReLU - MaxPool2d(2) block on a backend that fuses it.
 */
final class FusedBatchNormReluPool extends Function {
    private final float eps, momentum;
    private final NDArray runningMean, runningVar;
    private NDArray x, gamma, beta, mean, invStd;

    /** {@code runningMean}/{@code runningVar} null: no running averages to update. */
    FusedBatchNormReluPool(float eps, NDArray runningMean, NDArray runningVar, float momentum) {
        this.eps = eps;
        this.runningMean = runningMean;
        this.runningVar = runningVar;
        this.momentum = momentum;
    }

    @Override
    protected NDArray forward(NDArray... in) {
        BatchNorm.checkInputs("batchNorm2d + relu + maxPool2d(2)", in[0], in[1], in[2], runningMean, runningVar);
        int n = in[0].shape(0), c = in[0].shape(1), h = in[0].shape(2), w = in[0].shape(3);
        BatchNormReluPool.pooling(n, c, h, w);
        Backend be = in[0].backend();
        x = in[0].compact();
        gamma = in[1].compact();
        beta = in[2].compact();
        mean = NDArray.empty(x.device(), c);
        invStd = NDArray.empty(x.device(), c);
        NDArray out = NDArray.empty(x.device(), n, c, h / 2, w / 2);
        be.batchNormReluPoolForward(x.storage(), gamma.storage(), beta.storage(), out.storage(), mean.storage(), invStd.storage(),
                runningMean == null ? null : runningMean.storage(), runningVar == null ? null : runningVar.storage(),
                n, c, h, w, eps, momentum);
        return out;
    }

    @Override
    protected NDArray[] backward(NDArray dy) {
        int n = x.shape(0), c = x.shape(1), h = x.shape(2), w = x.shape(3);
        NDArray dx = NDArray.empty(dy.device(), x.shape());
        NDArray dgamma = NDArray.empty(dy.device(), c), dbeta = NDArray.empty(dy.device(), c);
        try (NDArray g = dy.compact()) {
            dy.backend().batchNormReluPoolBackward(g.storage(), x.storage(), mean.storage(), invStd.storage(), gamma.storage(),
                    beta.storage(), dx.storage(), dgamma.storage(), dbeta.storage(), n, c, h, w);
        }
        return new NDArray[] {needsGrad(0) ? dx : close(dx), needsGrad(1) ? dgamma : close(dgamma), needsGrad(2) ? dbeta : close(dbeta)};
    }

    private static NDArray close(NDArray a) {
        a.close();
        return null;
    }
}
