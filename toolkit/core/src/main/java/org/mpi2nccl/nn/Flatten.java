package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Tensor;

/** (N, d1, d2, ...) -> (N, d1*d2*...). */
public final class Flatten extends Module {
    @Override
    public Tensor forward(Tensor x) { return x.flatten(1); }
}
