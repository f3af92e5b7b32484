package org.mpi2nccl.optim;

import java.util.ArrayList;
import java.util.List;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;

/** Adam (Kingma and Ba 2015) with bias correction and L2 weight decay (see Backend#adamStep). */
public final class Adam extends Optimizer {
    private final float beta1, beta2, eps, weightDecay;
    private final List<NDArray> m = new ArrayList<>(), v = new ArrayList<>();
    private long step;

    public Adam(List<Tensor> params, float lr) { this(params, lr, 0.9f, 0.999f, 1e-8f, 0f); }

    public Adam(List<Tensor> params, float lr, float beta1, float beta2, float eps, float weightDecay) {
        super(params, lr);
        if (!(beta1 >= 0f && beta1 < 1f && beta2 >= 0f && beta2 < 1f && eps > 0f && weightDecay >= 0f))
            throw new IllegalArgumentException("Adam: need 0 <= beta < 1, eps > 0, weight decay >= 0; got " + beta1 + ", " + beta2
                    + ", " + eps + ", " + weightDecay);
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.eps = eps;
        this.weightDecay = weightDecay;
        for (Tensor p : this.params) {
            m.add(ArrayScope.outside(() -> NDArray.zeros(p.device(), p.shape())));
            v.add(ArrayScope.outside(() -> NDArray.zeros(p.device(), p.shape())));
        }
    }

    @Override
    public void step() {
        step++;
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i);
            NDArray g = p.grad();
            if (g == null) continue;
            try (NDArray gc = g.compact()) { // a new reference, or a copy when the gradient is a strided view
                p.device().backend().adamStep(p.data().storage(), gc.storage(), m.get(i).storage(), v.get(i).storage(), p.size(),
                        lr, beta1, beta2, eps, weightDecay, step);
            }
        }
    }

    public long steps() { return step; }

    @Override
    public void close() {
        for (NDArray a : m) a.close();
        for (NDArray a : v) a.close();
    }
}
