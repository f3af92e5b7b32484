package org.mpi2nccl.data;

import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/** One batch on the device: features (batch, featureShape...) and labels (batch,) as class indices in floats. */
public record Batch(NDArray x, NDArray y) implements AutoCloseable {

    public int size() { return y.shape(0); }

    /** The examples {@code indices} of {@code d} as one batch on {@code device}: gathered on the host, copied once. */
    public static Batch of(Dataset d, int[] indices, Device device) {
        int f = d.featureSize();
        float[] x = new float[indices.length * f], y = new float[indices.length];
        for (int i = 0; i < indices.length; i++) {
            d.features(indices[i], x, i * f);
            y[i] = d.label(indices[i]);
        }
        int[] shape = new int[1 + d.featureShape().length];
        shape[0] = indices.length;
        System.arraycopy(d.featureShape(), 0, shape, 1, shape.length - 1);
        return new Batch(NDArray.of(device, x, shape), NDArray.of(device, y, indices.length));
    }

    @Override
    public void close() {
        x.close();
        y.close();
    }
}
