package org.mpi2nccl.autograd;

import java.util.Arrays;
import org.mpi2nccl.tensor.NDArray;

/** Gradient helpers shared by the ops. */
final class Grads {
    private Grads() {}

    /**
     * The gradient of a broadcast: sums {@code g} over the axes along which {@code shape} was stretched
     * (leading axes it lacks, and its size-1 axes), giving an array of {@code shape}. Returns g itself when
     * nothing was broadcast.
     */
    static NDArray sumTo(NDArray g, int[] shape) {
        int[] gs = g.shape();
        if (Arrays.equals(gs, shape)) return g;
        int lead = gs.length - shape.length;
        int count = 0;
        int[] axes = new int[gs.length];
        for (int i = 0; i < gs.length; i++) {
            if (i < lead || (shape[i - lead] == 1 && gs[i] != 1)) axes[count++] = i;
        }
        try (NDArray s = g.reduce(org.mpi2nccl.tensor.ReduceOp.SUM, true, Arrays.copyOf(axes, count))) {
            return s.reshape(shape);
        }
    }
}
