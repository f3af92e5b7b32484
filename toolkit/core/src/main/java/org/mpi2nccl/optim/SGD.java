package org.mpi2nccl.optim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Storage;

/** Stochastic gradient descent with momentum and weight decay (PyTorch's definition, see Backend#sgdStep). */
public final class SGD extends Optimizer {
    private final float momentum, weightDecay;
    private final List<NDArray> velocity = new ArrayList<>();

    public SGD(List<Tensor> params, float lr) { this(params, lr, 0f, 0f); }

    public SGD(List<Tensor> params, float lr, float momentum, float weightDecay) {
        super(params, lr);
        if (momentum < 0f || weightDecay < 0f)
            throw new IllegalArgumentException("SGD: momentum and weight decay must be >= 0, got " + momentum + ", " + weightDecay);
        this.momentum = momentum;
        this.weightDecay = weightDecay;
        if (momentum != 0f)
            for (Tensor p : this.params) velocity.add(ArrayScope.outside(() -> NDArray.zeros(p.device(), p.shape())));
    }

    /** One {@link org.mpi2nccl.tensor.Backend#sgdSteps} call per device for all parameters (one launch per 16 on a GPU). */
    @Override
    public void step() {
        step(p -> true);
    }

    /** The update of the selected parameters only: each parameter's update depends on nothing but its own state. */
    @Override
    public void step(Predicate<Tensor> which) {
        step(which, null);
    }

    /**
     * The update of the selected parameters with the learning rate read from {@code lrAt} (one element on the
     * parameters' device) when the update runs, not {@link #lr()} as it is now: a step recorded once as a CUDA graph
     * then follows a rate that changes between replays if the rate is written there before each (DataParallel's
     * recorded steps do). With {@code lrAt} null, the same as {@link #step(Predicate)}.
     */
    public void step(Predicate<Tensor> which, NDArray lrAt) {
        if (lrAt != null && (lrAt.size() != 1 || !lrAt.isCompact() || !lrAt.device().equals(params.get(0).device()) || !sameDevice()))
            throw new IllegalArgumentException("SGD: the learning rate to read must be an array of its own of one element, on the"
                    + " parameters' device " + params.get(0).device() + " (all of them on it); got shape "
                    + java.util.Arrays.toString(lrAt.shape()) + " on " + lrAt.device() + (lrAt.isCompact() ? "" : ", a view"));
        List<Integer> withGrad = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) if (params.get(i).grad() != null && which.test(params.get(i))) withGrad.add(i);
        if (withGrad.isEmpty()) return;
        int k = withGrad.size();
        Storage[] ps = new Storage[k], gs = new Storage[k], vs = momentum != 0f ? new Storage[k] : null;
        long[] sizes = new long[k];
        NDArray[] compacts = new NDArray[k];  // new references, or copies where a gradient is a strided view
        try {
            for (int j = 0; j < k; j++) {
                Tensor p = params.get(withGrad.get(j));
                compacts[j] = p.grad().compact();
                ps[j] = p.data().storage();
                gs[j] = compacts[j].storage();
                if (vs != null) vs[j] = velocity.get(withGrad.get(j)).storage();
                sizes[j] = p.size();
            }
            if (lrAt != null) {
                params.get(0).device().backend().sgdStepsLrFrom(ps, gs, vs, sizes, lrAt.storage(), momentum, weightDecay);
            } else if (sameDevice()) {
                params.get(0).device().backend().sgdSteps(ps, gs, vs, sizes, lr, momentum, weightDecay);
            } else {
                for (int j = 0; j < k; j++)
                    params.get(withGrad.get(j)).device().backend().sgdStep(ps[j], gs[j], vs == null ? null : vs[j], sizes[j], lr, momentum, weightDecay);
            }
        } finally {
            for (NDArray c : compacts) if (c != null) c.close();
        }
    }

    @Override
    public boolean stepsInParts() {
        return true;
    }

    private boolean sameDevice() {
        for (Tensor p : params) if (!p.device().equals(params.get(0).device())) return false;
        return true;
    }

    @Override
    public void close() { for (NDArray v : velocity) v.close(); }

    @Override
    public long stateElements() { return liveElements(velocity); }
}
