package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/**
 * Inverted dropout as an autograd function: zeroes each element with probability p and scales the rest by
 * 1/(1-p). The layer that uses it is {@code nn.Dropout}.
 */
final class DropoutFunction extends Function {
    private final float p;
    private final Rng rng;
    private NDArray mask;

    DropoutFunction(float p, Rng rng) {
        if (!(p >= 0f && p < 1f)) throw new IllegalArgumentException("dropout: probability must be in [0, 1), got " + p);
        this.p = p;
        this.rng = rng;
    }

    @Override
    protected NDArray forward(NDArray... in) {
        try (NDArray u = NDArray.uniform(in[0].device(), rng, 0f, 1f, in[0].shape()); NDArray keep = u.ge(p)) {
            mask = keep.mul(1f / (1f - p));
        }
        return in[0].mul(mask);
    }

    @Override
    protected NDArray[] backward(NDArray g) { return new NDArray[] {g.mul(mask)}; }
}
