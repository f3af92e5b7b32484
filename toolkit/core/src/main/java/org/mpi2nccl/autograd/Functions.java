package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/** The differentiable operations that are not methods of {@link Tensor}: layers' building blocks and joins. */
public final class Functions {
    private Functions() {}

    /** Convolution of x (N, C, H, W) with weight (OC, C, KH, KW); add a bias separately (broadcast (1, OC, 1, 1)). */
    public static Tensor conv2d(Tensor x, Tensor weight, int stride, int padding) {
        return new Convolution(stride, padding).apply(x, weight);
    }

    /** Max-pooling with a square window. */
    public static Tensor maxPool2d(Tensor x, int kernel, int stride, int padding) {
        return new Pooling(kernel, stride, padding).apply(x);
    }

    /** Inverted dropout with probability p, masks drawn from {@code rng}. */
    public static Tensor dropout(Tensor x, float p, Rng rng) {
        return new DropoutFunction(p, rng).apply(x);
    }

    /** Batch normalisation of x (N, C, H, W) with batch statistics (training mode). */
    public static Tensor batchNorm2d(Tensor x, Tensor weight, Tensor bias, float eps) {
        return new BatchNorm(eps, null, null, 0f).apply(x, weight, bias);
    }

    /**
     * Batch normalisation with batch statistics that also updates the running averages in place (compact (C,)
     * arrays on x's device): {@code running = (1 - momentum) running + momentum batch}, the variance unbiased.
     */
    public static Tensor batchNorm2d(Tensor x, Tensor weight, Tensor bias, float eps, NDArray runningMean, NDArray runningVar,
                                     float momentum) {
        if (runningMean == null || runningVar == null)
            throw new IllegalArgumentException("batchNorm2d: running mean and variance must both be given (or use the overload without them)");
        return new BatchNorm(eps, runningMean, runningVar, momentum).apply(x, weight, bias);
    }

    /**
     * {@code maxPool2d(relu(batchNorm2d(x)), 2)} in one function (training mode, running averages updated as
     * {@link #batchNorm2d(Tensor, Tensor, Tensor, float, NDArray, NDArray, float)} does): the same values and
     * gradients, computed in fewer passes over memory on a backend that fuses them. x's height and width must be even.
     */
    public static Tensor batchNormReluMaxPool2d(Tensor x, Tensor weight, Tensor bias, float eps, NDArray runningMean,
                                                NDArray runningVar, float momentum) {
        if ((runningMean == null) != (runningVar == null))
            throw new IllegalArgumentException("batchNormReluMaxPool2d: running mean and variance go together (both or neither)");
        return new FusedBatchNormReluPool(eps, runningMean, runningVar, momentum).apply(x, weight, bias);
    }

    /** Mean softmax cross-entropy of logits (N, C) against class indices (N,) stored as floats. */
    public static Tensor softmaxCrossEntropy(Tensor logits, NDArray labels) {
        return new Losses.SoftmaxCrossEntropy(labels).apply(logits);
    }

    public static Tensor stack(int axis, Tensor... tensors) { return new ShapeOps.Stack(axis).apply(tensors); }

    public static Tensor concat(int axis, Tensor... tensors) { return new ShapeOps.Concat(axis).apply(tensors); }
}
