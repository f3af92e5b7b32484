package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.NDArray;

/** A training criterion: a scalar tensor from the model's output and the batch's targets, to call backward on. */
@FunctionalInterface
public interface Loss {
    Tensor forward(Tensor output, NDArray target);
}
