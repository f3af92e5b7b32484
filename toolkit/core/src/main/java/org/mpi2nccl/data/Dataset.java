package org.mpi2nccl.data;

/**
 * Labelled examples, read by index: the features of example i as {@code featureShape()} floats and its class.
 * Data loaders gather examples into batches on the host and copy each batch to the device once.
 */
public interface Dataset {

    int size();

    /** The shape of one example's features, e.g. (1, 28, 28). */
    int[] featureShape();

    int numClasses();

    /** Writes example {@code index}'s features (row-major, {@code featureSize()} floats) at {@code dst[offset]}. */
    void features(int index, float[] dst, int offset);

    /** Example {@code index}'s class in [0, numClasses). */
    int label(int index);

    default int featureSize() {
        int n = 1;
        for (int d : featureShape()) n *= d;
        return n;
    }
}
