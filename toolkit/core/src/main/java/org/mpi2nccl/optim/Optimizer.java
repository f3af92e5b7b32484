package org.mpi2nccl.optim;

import java.util.List;
import java.util.function.Predicate;
import org.mpi2nccl.autograd.Tensor;

/**
 * Updates parameters from their gradients. Updates run on the parameters' device through the backend's
 * update primitives, in place: no parameter or gradient is copied to the host. State (momentum, Adam's
 * moments) is allocated once, at construction, and lives until {@link #close()}.
 */
public abstract class Optimizer implements AutoCloseable {
    protected final List<Tensor> params;
    protected float lr;

    protected Optimizer(List<Tensor> params, float lr) {
        if (params.isEmpty()) throw new IllegalArgumentException(getClass().getSimpleName() + ": no parameters to optimise");
        if (!(lr > 0f)) throw new IllegalArgumentException(getClass().getSimpleName() + ": learning rate must be positive, got " + lr);
        for (Tensor p : params)
            if (!p.isLeaf() || !p.requiresGrad() || !p.data().isCompact())
                throw new IllegalArgumentException(getClass().getSimpleName() + ": every parameter must be a compact leaf that requires gradients");
        this.params = List.copyOf(params);
        this.lr = lr;
    }

    /** One update of every parameter that has a gradient. */
    public abstract void step();

    /**
     * One update of the parameters {@code which} selects, for a step split in parts (data-parallel training updates the
     * parameters whose gradients are already averaged while the last ones are still being all-reduced). Only where the
     * parts together equal one {@link #step()}: an optimizer with a step count of its own (Adam's bias correction) cannot.
     */
    public void step(Predicate<Tensor> which) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot update part of its parameters at a time"
                + " (its step has state of its own): call step()");
    }

    /** Whether {@link #step(Predicate)} may be called. */
    public boolean stepsInParts() {
        return false;
    }

    /** Zeroes every parameter's gradient (keeping the buffers). */
    public void zeroGrad() { for (Tensor p : params) p.zeroGrad(); }

    public float lr() { return lr; }

    public void setLr(float lr) { this.lr = lr; }

    public List<Tensor> params() { return params; }

    /**
     * Floats of state this optimizer keeps between steps (SGD's momentum, Adam's two moments), counted from its live
     * arrays: what sharding the optimizer (ZeRO) divides by the number of ranks.
     */
    public long stateElements() { return 0; }

    /** The sizes of {@code arrays} that are not closed, summed: a subclass's {@link #stateElements()}. */
    protected static long liveElements(List<org.mpi2nccl.tensor.NDArray> arrays) {
        long n = 0;
        for (org.mpi2nccl.tensor.NDArray a : arrays) if (!a.isClosed()) n += a.size();
        return n;
    }

    /** Frees the optimizer's state. */
    @Override
    public void close() {}
}
