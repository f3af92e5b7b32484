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
        return new Dropout(p, rng).apply(x);
    }

    /** Result of {@link #batchNorm2d}: the output and the batch statistics (for running averages). */
    public record BatchNormResult(Tensor output, NDArray batchMean, NDArray batchVariance) {}

    /** Batch normalisation with batch statistics (training mode). */
    public static BatchNormResult batchNorm2d(Tensor x, Tensor weight, Tensor bias, float eps) {
        BatchNorm f = new BatchNorm(eps);
        Tensor out = f.apply(x, weight, bias);
        return new BatchNormResult(out, f.batchMean, f.batchVarUnbiased);
    }

    /** Mean softmax cross-entropy of logits (N, C) against class indices (N,) stored as floats. */
    public static Tensor softmaxCrossEntropy(Tensor logits, NDArray labels) {
        return new Losses.SoftmaxCrossEntropy(labels).apply(logits);
    }

    public static Tensor stack(int axis, Tensor... tensors) { return new ShapeOps.Stack(axis).apply(tensors); }

    public static Tensor concat(int axis, Tensor... tensors) { return new ShapeOps.Concat(axis).apply(tensors); }
}
