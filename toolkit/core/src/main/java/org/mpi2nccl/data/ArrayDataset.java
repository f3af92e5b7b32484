package org.mpi2nccl.data;

import java.util.Arrays;

/** A data set held in memory: all features in one float array, labels in an int array. */
public class ArrayDataset implements Dataset {
    private final float[] features;
    private final int[] labels;
    private final int[] featureShape;
    private final int featureSize;
    private final int numClasses;

    public ArrayDataset(float[] features, int[] labels, int[] featureShape, int numClasses) {
        int fs = 1;
        for (int d : featureShape) fs *= d;
        if ((long) fs * labels.length != features.length)
            throw new IllegalArgumentException("ArrayDataset: " + features.length + " feature values for " + labels.length
                    + " examples of shape " + Arrays.toString(featureShape) + " (expected " + (long) fs * labels.length + ")");
        for (int i = 0; i < labels.length; i++)
            if (labels[i] < 0 || labels[i] >= numClasses)
                throw new IllegalArgumentException("ArrayDataset: label " + labels[i] + " of example " + i + " is not in [0, " + numClasses + ")");
        this.features = features;
        this.labels = labels;
        this.featureShape = featureShape.clone();
        this.featureSize = fs;
        this.numClasses = numClasses;
    }

    @Override public int size() { return labels.length; }
    @Override public int[] featureShape() { return featureShape.clone(); }
    @Override public int numClasses() { return numClasses; }
    @Override public int featureSize() { return featureSize; }
    @Override public int label(int index) { return labels[index]; }

    @Override
    public void features(int index, float[] dst, int offset) {
        System.arraycopy(features, index * featureSize, dst, offset, featureSize);
    }

    /** The first {@code n} examples (a view sharing the arrays' prefix; for quick runs). */
    public ArrayDataset head(int n) {
        if (n < 0 || n > size()) throw new IllegalArgumentException("head: " + n + " examples requested, the data set has " + size());
        return new ArrayDataset(Arrays.copyOf(features, n * featureSize), Arrays.copyOf(labels, n), featureShape, numClasses);
    }
}
