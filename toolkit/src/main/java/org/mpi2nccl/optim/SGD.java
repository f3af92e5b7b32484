package org.mpi2nccl.optim;

import java.util.ArrayList;
import java.util.List;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;

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

    @Override
    public void step() {
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i);
            NDArray g = p.grad();
            if (g == null) continue;
            try (NDArray gc = g.compact()) { // a new reference, or a copy when the gradient is a strided view
                p.device().backend().sgdStep(p.data().storage(), gc.storage(), momentum != 0f ? velocity.get(i).storage() : null,
                        p.size(), lr, momentum, weightDecay);
            }
        }
    }

    @Override
    public void close() { for (NDArray v : velocity) v.close(); }
}
