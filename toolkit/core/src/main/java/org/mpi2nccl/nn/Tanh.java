package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Tensor;

/** tanh(x). */
public final class Tanh extends Module {
    @Override
    public Tensor forward(Tensor x) { return x.tanh(); }
}
