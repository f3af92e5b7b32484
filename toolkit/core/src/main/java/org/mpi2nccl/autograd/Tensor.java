package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/**
 * An {@link NDArray} in a computation graph: it remembers the {@link Function} and inputs that produced it,
 * so {@link #backward()} can compute the gradient of a scalar with respect to every leaf that
 * {@link #requiresGrad()}. Gradients accumulate into {@link #grad()} (call {@link #zeroGrad()} between steps,
 * as optimizers do). Under {@link GradMode#off()} nothing is recorded.
 */
public final class Tensor implements AutoCloseable {

    private final NDArray data;
    private boolean requiresGrad;
    private final Function creator;
    private final Tensor[] inputs;
    private NDArray grad;

    private Tensor(NDArray data, boolean requiresGrad, Function creator, Tensor[] inputs) {
        this.data = data;
        this.requiresGrad = requiresGrad;
        this.creator = creator;
        this.inputs = inputs;
    }

    /** A leaf that never needs a gradient (inputs, labels). */
    public static Tensor constant(NDArray data) { return new Tensor(data, false, null, null); }

    /** A leaf whose gradient backward computes (parameters, or inputs under study). */
    public static Tensor parameter(NDArray data) { return new Tensor(data, true, null, null); }

    public static Tensor leaf(NDArray data, boolean requiresGrad) { return new Tensor(data, requiresGrad, null, null); }

    static Tensor node(NDArray data, Function creator, Tensor[] inputs) {
        return new Tensor(data, true, creator, inputs.clone());
    }

    // ---- what it is -----------------------------------------------------------------------------------------

    public NDArray data() { return data; }

    /** The accumulated gradient of a leaf (null before the first backward or for non-leaves). */
    public NDArray grad() { return grad; }

    public boolean requiresGrad() { return requiresGrad; }

    /**
     * Freezes ({@code false}) or unfreezes a leaf, as PyTorch's {@code requires_grad_}: a frozen parameter gets no
     * gradient from backward, so an optimizer given the trainable parameters leaves it as it is. Returns this.
     */
    public Tensor requiresGrad(boolean on) {
        if (!isLeaf()) {
            throw new IllegalStateException("only a leaf (a parameter or an input) can be frozen or unfrozen; this tensor was"
                    + " computed by " + creator.name() + ": freeze the parameters it came from instead");
        }
        requiresGrad = on;
        return this;
    }

    public boolean isLeaf() { return creator == null; }

    /** The function that made this tensor (null for leaves). */
    public Function creator() { return creator; }

    Tensor[] inputs() { return inputs; }

    public int[] shape() { return data.shape(); }

    public int shape(int axis) { return data.shape(axis); }

    public int ndim() { return data.ndim(); }

    public long size() { return data.size(); }

    public Device device() { return data.device(); }

    public float item() { return data.item(); }

    public float[] toArray() { return data.toArray(); }

    /** The same data, cut from the graph: no gradient flows through it. */
    public Tensor detach() { return constant(data); }

    // ---- gradients ------------------------------------------------------------------------------------------

    /** Backward from a one-element tensor (a loss): d(this)/d(leaf) is added into every leaf's grad. */
    public void backward() {
        if (!requiresGrad)
            throw new IllegalStateException("backward: this tensor does not require gradients (no input of it requires "
                    + "them, or it was computed with GradMode off)");
        if (data.size() != 1)
            throw new IllegalStateException("backward: the tensor has shape " + Shapes.str(data.shape())
                    + ", not a single element; pass the gradient of the output with backward(grad)");
        try (NDArray one = NDArray.ones(device(), data.shape())) {
            Backward.run(this, one);
        }
    }

    /**
     * {@link #backward()} that tells {@code onLeafGradReady} each leaf the moment its gradient is complete
     * (data-parallel training overlaps the all-reduce of finished gradients with the rest of backward).
     */
    public void backward(java.util.function.Consumer<Tensor> onLeafGradReady) {
        if (!requiresGrad || data.size() != 1) {
            backward();                       // the same checks and messages
            return;
        }
        try (NDArray one = NDArray.ones(device(), data.shape())) {
            Backward.run(this, one, onLeafGradReady);
        }
    }

    /** Backward with the given gradient of this tensor (same shape). */
    public void backward(NDArray outGrad) {
        if (!requiresGrad)
            throw new IllegalStateException("backward: this tensor does not require gradients");
        if (!java.util.Arrays.equals(outGrad.shape(), data.shape()))
            throw new IllegalArgumentException("backward: gradient of shape " + Shapes.str(outGrad.shape())
                    + " given for a tensor of shape " + Shapes.str(data.shape()));
        Backward.run(this, outGrad);
    }

    void accumulateGrad(NDArray g) {
        if (grad == null || grad.isClosed()) grad = Backward.newGradBuffer(g);
        else grad.addInPlace(g);
    }

    /**
     * The gradient buffer, allocated as zeros (outside any scope) if backward has not made one yet: lets
     * data-parallel code lay out its all-reduce buckets before the first step.
     */
    public NDArray ensureGrad() {
        if (!isLeaf()) throw new IllegalStateException("ensureGrad: only leaves keep gradients");
        if (grad == null || grad.isClosed())
            grad = org.mpi2nccl.tensor.ArrayScope.outside(() -> NDArray.zeros(data.device(), data.shape()));
        return grad;
    }

    /** Sets the gradient to zeros in place (the buffer is kept: optimizers and all-reduce buckets hold it). */
    public void zeroGrad() {
        if (grad != null) grad.fill(0f);
    }

    /** Replaces the gradient buffer (used by data-parallel code that reduces gradients elsewhere). */
    public void setGrad(NDArray g) {
        if (g != null && !java.util.Arrays.equals(g.shape(), data.shape()))
            throw new IllegalArgumentException("setGrad: gradient of shape " + Shapes.str(g.shape()) + " for a tensor of shape "
                    + Shapes.str(data.shape()));
        grad = g;
    }

    /** Frees the data and the gradient. */
    @Override
    public void close() {
        data.close();
        if (grad != null) grad.close();
    }

    // ---- operations (each records itself for backward) ------------------------------------------------------

    public Tensor add(Tensor o) { return new Ops.Add().apply(this, o); }
    public Tensor sub(Tensor o) { return new Ops.Sub().apply(this, o); }
    public Tensor mul(Tensor o) { return new Ops.Mul().apply(this, o); }
    public Tensor div(Tensor o) { return new Ops.Div().apply(this, o); }
    public Tensor pow(Tensor o) { return new Ops.Pow().apply(this, o); }

    public Tensor add(float s) { return new Ops.AddScalar(s).apply(this); }
    public Tensor sub(float s) { return new Ops.AddScalar(-s).apply(this); }
    public Tensor mul(float s) { return new Ops.MulScalar(s).apply(this); }
    public Tensor div(float s) { return new Ops.MulScalar(1f / s).apply(this); }
    public Tensor pow(float s) { return new Ops.PowScalar(s).apply(this); }
    /** {@code s / this}. */
    public Tensor rdiv(float s) { return new Ops.RDivScalar(s).apply(this); }
    /** {@code s - this}. */
    public Tensor rsub(float s) { return neg().add(s); }

    public Tensor neg() { return new Ops.Neg().apply(this); }
    public Tensor exp() { return new Ops.Exp().apply(this); }
    public Tensor log() { return new Ops.Log().apply(this); }
    public Tensor relu() { return new Ops.Relu().apply(this); }
    public Tensor tanh() { return new Ops.Tanh().apply(this); }
    public Tensor sigmoid() { return new Ops.Sigmoid().apply(this); }

    /** Sum over axes (none = all). */
    public Tensor sum(int... axes) { return new ReductionFunctions.Sum(axes, false).apply(this); }
    public Tensor sumKeepDims(int... axes) { return new ReductionFunctions.Sum(axes, true).apply(this); }
    public Tensor max(int... axes) { return new ReductionFunctions.Max(axes, false).apply(this); }
    public Tensor maxKeepDims(int... axes) { return new ReductionFunctions.Max(axes, true).apply(this); }

    public Tensor mean(int... axes) {
        long count = 1;
        for (int a : Shapes.axes(axes, ndim(), "mean")) count *= shape(a);
        return sum(axes).mul(1f / count);
    }

    public Tensor matmul(Tensor o) { return new MatMul().apply(this, o); }

    public Tensor reshape(int... shape) { return new ShapeOps.Reshape(shape).apply(this); }
    public Tensor flatten(int startAxis) {
        int a = Shapes.axis(startAxis, ndim(), "flatten");
        int[] s = java.util.Arrays.copyOf(shape(), a + 1);
        s[a] = -1;
        return reshape(s);
    }
    public Tensor permute(int... axes) { return new ShapeOps.Permute(axes).apply(this); }
    public Tensor transpose(int a, int b) {
        int[] p = new int[ndim()];
        for (int i = 0; i < p.length; i++) p[i] = i;
        int x = Shapes.axis(a, ndim(), "transpose"), y = Shapes.axis(b, ndim(), "transpose");
        p[x] = y;
        p[y] = x;
        return permute(p);
    }
    /** Swaps the last two axes. */
    public Tensor transpose() { return transpose(-2, -1); }
    public Tensor broadcastTo(int... shape) { return new ShapeOps.BroadcastTo(shape).apply(this); }
    public Tensor slice(int axis, int start, int end) { return new ShapeOps.Slice(axis, start, end).apply(this); }

    public Tensor logsumexp(int... axes) { return new Losses.LogSumExp(axes).apply(this); }
    public Tensor logSoftmax(int axis) { return new Losses.LogSoftmax(axis).apply(this); }

    @Override
    public String toString() {
        return "Tensor" + (requiresGrad ? "(requiresGrad" + (creator != null ? ", " + creator.name() : "") + ") " : " ") + data;
    }
}
