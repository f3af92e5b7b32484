package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Tensor;

/** 1 / (1 + exp(-x)). */
public final class Sigmoid extends Module {
    @Override
    public Tensor forward(Tensor x) { return x.sigmoid(); }
}
