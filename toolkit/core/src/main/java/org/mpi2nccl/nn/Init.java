package org.mpi2nccl.nn;

import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/**
 * Weight initialisations (He et al. 2015 "Kaiming", Glorot and Bengio 2010 "Xavier"), drawn from a seeded
 * {@link Rng}: the same seed gives the same weights on every device.
 */
public final class Init {
    private Init() {}

    /** The gain recommended for ReLU layers. */
    public static final float RELU_GAIN = (float) Math.sqrt(2.0);

    /** Uniform in [-b, b] with b = gain * sqrt(3 / fanIn). */
    public static NDArray kaimingUniform(Device d, Rng rng, int fanIn, int... shape) {
        float bound = RELU_GAIN * (float) Math.sqrt(3.0 / fanIn);
        return NDArray.uniform(d, rng, -bound, bound, shape);
    }

    /** Normal with std = gain / sqrt(fanIn). */
    public static NDArray kaimingNormal(Device d, Rng rng, int fanIn, int... shape) {
        return NDArray.normal(d, rng, 0f, RELU_GAIN / (float) Math.sqrt(fanIn), shape);
    }

    /** Uniform in [-b, b] with b = sqrt(6 / (fanIn + fanOut)). */
    public static NDArray xavierUniform(Device d, Rng rng, int fanIn, int fanOut, int... shape) {
        float bound = (float) Math.sqrt(6.0 / (fanIn + fanOut));
        return NDArray.uniform(d, rng, -bound, bound, shape);
    }

    /** Normal with std = sqrt(2 / (fanIn + fanOut)). */
    public static NDArray xavierNormal(Device d, Rng rng, int fanIn, int fanOut, int... shape) {
        return NDArray.normal(d, rng, 0f, (float) Math.sqrt(2.0 / (fanIn + fanOut)), shape);
    }

    /** Uniform in [-1/sqrt(fanIn), 1/sqrt(fanIn)]: PyTorch's default for biases. */
    public static NDArray fanInUniform(Device d, Rng rng, int fanIn, int... shape) {
        float bound = 1f / (float) Math.sqrt(fanIn);
        return NDArray.uniform(d, rng, -bound, bound, shape);
    }
}
