package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.Rng;

/** y = x W^T + b, with W (out, in) Kaiming-uniform and b fan-in uniform (PyTorch's layout). */
public final class Linear extends Module {
    private final int in, out;
    private final Tensor weight, bias;

    public Linear(int in, int out, Device device, Rng rng) { this(in, out, true, device, rng); }

    public Linear(int in, int out, boolean bias, Device device, Rng rng) {
        if (in < 1 || out < 1) throw new IllegalArgumentException("Linear: sizes must be positive, got " + in + " -> " + out);
        this.in = in;
        this.out = out;
        this.weight = addParameter("weight", () -> Init.kaimingUniform(device, rng, in, out, in));
        this.bias = bias ? addParameter("bias", () -> Init.fanInUniform(device, rng, in, out)) : null;
    }

    @Override
    public Tensor forward(Tensor x) {
        if (x.shape(-1) != in)
            throw new IllegalArgumentException("Linear(" + in + " -> " + out + "): input of shape "
                    + org.mpi2nccl.tensor.Shapes.str(x.shape()) + " does not end in " + in);
        Tensor y = x.matmul(weight.transpose());
        return bias == null ? y : y.add(bias);
    }

    public Tensor weight() { return weight; }

    public Tensor bias() { return bias; }

    @Override
    protected String describe() { return "Linear(" + in + " -> " + out + (bias == null ? ", no bias" : "") + ")"; }
}
