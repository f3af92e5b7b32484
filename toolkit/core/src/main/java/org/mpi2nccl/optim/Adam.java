package org.mpi2nccl.optim;

import java.util.ArrayList;
import java.util.List;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Storage;

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

    /** One {@link org.mpi2nccl.tensor.Backend#adamSteps} call per device for all parameters (one launch per 16 on a GPU). */
    @Override
    public void step() {
        step++;
        List<Integer> withGrad = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) if (params.get(i).grad() != null) withGrad.add(i);
        if (withGrad.isEmpty()) return;
        int k = withGrad.size();
        Storage[] ps = new Storage[k], gs = new Storage[k], ms = new Storage[k], vs = new Storage[k];
        long[] sizes = new long[k];
        NDArray[] compacts = new NDArray[k];  // new references, or copies where a gradient is a strided view
        try {
            for (int j = 0; j < k; j++) {
                int i = withGrad.get(j);
                Tensor p = params.get(i);
                compacts[j] = p.grad().compact();
                ps[j] = p.data().storage();
                gs[j] = compacts[j].storage();
                ms[j] = m.get(i).storage();
                vs[j] = v.get(i).storage();
                sizes[j] = p.size();
            }
            if (sameDevice()) {
                params.get(0).device().backend().adamSteps(ps, gs, ms, vs, sizes, lr, beta1, beta2, eps, weightDecay, step);
            } else {
                for (int j = 0; j < k; j++)
                    params.get(withGrad.get(j)).device().backend().adamStep(ps[j], gs[j], ms[j], vs[j], sizes[j], lr, beta1, beta2,
                            eps, weightDecay, step);
            }
        } finally {
            for (NDArray c : compacts) if (c != null) c.close();
        }
    }

    private boolean sameDevice() {
        for (Tensor p : params) if (!p.device().equals(params.get(0).device())) return false;
        return true;
    }

    public long steps() { return step; }

    @Override
    public long stateElements() { return liveElements(m) + liveElements(v); }

    @Override
    public void close() {
        for (NDArray a : m) a.close();
        for (NDArray a : v) a.close();
    }
}
