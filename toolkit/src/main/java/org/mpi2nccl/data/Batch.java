package org.mpi2nccl.data;

import org.mpi2nccl.tensor.NDArray;

/** One batch on the device: features (batch, featureShape...) and labels (batch,) as class indices in floats. */
public record Batch(NDArray x, NDArray y) implements AutoCloseable {

    public int size() { return y.shape(0); }

    @Override
    public void close() {
        x.close();
        y.close();
    }
}
