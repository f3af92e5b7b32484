package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Functions;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Batch normalisation per channel of NCHW input. Training: batch statistics, and running averages updated as
 * {@code running = (1 - momentum) running + momentum batch} (unbiased variance, like PyTorch) in the same backend
 * call as the forward pass. Eval: the running averages. The statistics are local to the rank (data-parallel
 * training says so where it matters).
 */
public final class BatchNorm2d extends Module {
    private final int channels;
    private final float eps, momentum;
    private final Tensor weight, bias;
    private final NDArray runningMean, runningVar;

    public BatchNorm2d(int channels, Device device) { this(channels, 1e-5f, 0.1f, device); }

    public BatchNorm2d(int channels, float eps, float momentum, Device device) {
        this.channels = channels;
        this.eps = eps;
        this.momentum = momentum;
        this.weight = addParameter("weight", () -> NDArray.ones(device, channels));
        this.bias = addParameter("bias", () -> NDArray.zeros(device, channels));
        this.runningMean = addBuffer("running_mean", () -> NDArray.zeros(device, channels));
        this.runningVar = addBuffer("running_var", () -> NDArray.ones(device, channels));
    }

    @Override
    public Tensor forward(Tensor x) {
        if (isTraining()) return Functions.batchNorm2d(x, weight, bias, eps, runningMean, runningVar, momentum);
        int[] cs = {1, channels, 1, 1};
        try (NDArray ve = runningVar.add(eps); NDArray inv = ve.pow(-0.5f); NDArray m4 = runningMean.reshape(cs);
             NDArray i4 = inv.reshape(cs)) {
            Tensor centred = x.sub(Tensor.constant(m4.copy()));
            return centred.mul(Tensor.constant(i4.copy())).mul(weight.reshape(cs)).add(bias.reshape(cs));
        }
    }

    /** Training: this layer, a ReLU and a 2x2 max pooling as one function ({@link FusedBlocks}). */
    Tensor forwardWithReluAndPool(Tensor x) {
        return Functions.batchNormReluMaxPool2d(x, weight, bias, eps, runningMean, runningVar, momentum);
    }

    public NDArray runningMean() { return runningMean; }

    public NDArray runningVar() { return runningVar; }

    @Override
    protected String describe() { return "BatchNorm2d(" + channels + ")"; }
}
