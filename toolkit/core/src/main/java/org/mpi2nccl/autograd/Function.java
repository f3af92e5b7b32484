package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.NDArray;

/**
 * One differentiable operation: its forward on arrays, and its backward, the gradient of each input given the
 * gradient of the output. A new instance is made for every application, so it can keep in fields what
 * backward needs (inputs, masks, intermediate results). {@link #apply} runs forward and, when gradients are
 * recorded, links the output {@link Tensor} to this function and its inputs.
 */
public abstract class Function {

    private boolean[] needsGrad;

    /** The output array; the inputs must not be modified. */
    protected abstract NDArray forward(NDArray... inputs);

    /**
     * The gradient for each input, shaped like that input; null for an input that does not need one
     * ({@link #needsGrad}). May return {@code outGrad} itself, or views of it.
     */
    protected abstract NDArray[] backward(NDArray outGrad);

    /** Whether input {@code i} needs a gradient (skip the work when not). */
    protected final boolean needsGrad(int i) { return needsGrad == null || needsGrad[i]; }

    /** A short name for error messages (the class name by default). */
    public String name() { return getClass().getSimpleName(); }

    public final Tensor apply(Tensor... inputs) {
        NDArray[] data = new NDArray[inputs.length];
        boolean record = GradMode.isEnabled();
        boolean any = false;
        needsGrad = new boolean[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            data[i] = inputs[i].data();
            needsGrad[i] = inputs[i].requiresGrad();
            any |= needsGrad[i];
        }
        NDArray out = forward(data);
        return record && any ? Tensor.node(out, this, inputs) : Tensor.constant(out);
    }
}
