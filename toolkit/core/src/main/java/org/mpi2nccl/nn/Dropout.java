package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Functions;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.Rng;

/** Zeroes elements with probability p while training (masks from a seeded Rng); identity in eval mode. */
public final class Dropout extends Module {
    private final float p;
    private final Rng rng;

    public Dropout(float p, Rng rng) {
        if (!(p >= 0f && p < 1f)) throw new IllegalArgumentException("Dropout: probability must be in [0, 1), got " + p);
        this.p = p;
        this.rng = rng;
    }

    @Override
    public Tensor forward(Tensor x) { return isTraining() && p > 0f ? Functions.dropout(x, p, rng) : x; }

    @Override
    protected String describe() { return "Dropout(" + p + ")"; }
}
