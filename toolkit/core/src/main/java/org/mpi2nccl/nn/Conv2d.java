package org.mpi2nccl.nn;

import org.mpi2nccl.autograd.Functions;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.Rng;

/** 2-D convolution over NCHW input, square kernel; weight (out, in, k, k) Kaiming-uniform, bias fan-in uniform. */
public final class Conv2d extends Module {
    private final int in, out, kernel, stride, padding;
    private final Tensor weight, bias;

    public Conv2d(int in, int out, int kernel, int stride, int padding, Device device, Rng rng) {
        this(in, out, kernel, stride, padding, true, device, rng);
    }

    public Conv2d(int in, int out, int kernel, int stride, int padding, boolean bias, Device device, Rng rng) {
        if (in < 1 || out < 1 || kernel < 1 || stride < 1 || padding < 0)
            throw new IllegalArgumentException("Conv2d: bad arguments in=" + in + " out=" + out + " kernel=" + kernel
                    + " stride=" + stride + " padding=" + padding);
        this.in = in;
        this.out = out;
        this.kernel = kernel;
        this.stride = stride;
        this.padding = padding;
        int fanIn = in * kernel * kernel;
        this.weight = addParameter("weight", () -> Init.kaimingUniform(device, rng, fanIn, out, in, kernel, kernel));
        this.bias = bias ? addParameter("bias", () -> Init.fanInUniform(device, rng, fanIn, out)) : null;
    }

    @Override
    public Tensor forward(Tensor x) {
        Tensor y = Functions.conv2d(x, weight, stride, padding);
        return bias == null ? y : y.add(bias.reshape(1, out, 1, 1));
    }

    @Override
    protected String describe() {
        return "Conv2d(" + in + " -> " + out + ", kernel " + kernel + ", stride " + stride + ", padding " + padding + ")";
    }
}
