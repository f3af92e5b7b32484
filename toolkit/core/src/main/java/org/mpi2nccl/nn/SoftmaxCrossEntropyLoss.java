package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Functions;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.NDArray;

/** Mean cross-entropy of softmax(logits) against integer class labels (stored as floats), in one stable op. */
public final class SoftmaxCrossEntropyLoss implements Loss {
    @Override
    public Tensor forward(Tensor logits, NDArray labels) { return Functions.softmaxCrossEntropy(logits, labels); }
}
