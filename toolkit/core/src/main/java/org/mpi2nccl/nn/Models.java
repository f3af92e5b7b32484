package org.mpi2nccl.nn;

import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.Rng;

/** The lessons' models, built the same way on every rank and device from a seed. */
public final class Models {
    private Models() {}

    /** Multi-layer perceptron on flattened 28x28 images: 784 -> hidden -> ReLU -> 10. */
    public static Sequential mlp(int hidden, Device device, long seed) {
        Rng rng = new Rng(seed);
        return new Sequential(new Flatten(), new Linear(784, hidden, device, rng), new ReLU(), new Linear(hidden, 10, device, rng));
    }

    /**
     * The lesson CNN for 1-channel 28x28 images (Fashion-MNIST): two blocks of 3x3 convolution, batch-norm,
     * ReLU and 2x2 max-pooling ({@code c1} then {@code c2} channels), then a 128-unit hidden layer and 10 outputs.
     */
    public static Sequential cnn(int c1, int c2, Device device, long seed) {
        return cnn(1, 28, c1, c2, device, seed);
    }

    /** The same CNN for {@code channels} x {@code size} x {@code size} images (size divisible by 4, e.g. CIFAR's 3x32x32). */
    public static Sequential cnn(int channels, int size, int c1, int c2, Device device, long seed) {
        if (size % 4 != 0) throw new IllegalArgumentException("cnn: image size must be divisible by 4, got " + size);
        Rng rng = new Rng(seed);
        int flat = c2 * (size / 4) * (size / 4);
        return new Sequential(
                new Conv2d(channels, c1, 3, 1, 1, false, device, rng), new BatchNorm2d(c1, device), new ReLU(), new MaxPool2d(2),
                new Conv2d(c1, c2, 3, 1, 1, false, device, rng), new BatchNorm2d(c2, device), new ReLU(), new MaxPool2d(2),
                new Flatten(), new Linear(flat, 128, device, rng), new ReLU(), new Linear(128, 10, device, rng));
    }
}
