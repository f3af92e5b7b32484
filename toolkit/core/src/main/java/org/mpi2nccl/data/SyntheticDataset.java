package org.mpi2nccl.data;

import org.mpi2nccl.tensor.CounterRandom;

/**
 * A seeded random data set of any feature shape (e.g. CIFAR-shaped 3x32x32 for timing runs without the
 * files). Features are uniform with mean 0 and variance 1 (each value a few arithmetic operations of a counter-based
 * generator, so even a set of CIFAR's size is made quickly); each label is the class whose fixed random "teacher"
 * direction the example is closest to, so a model can learn it. Example i is a function of (seed, i) only;
 * labels are remembered once computed.
 */
public final class SyntheticDataset implements Dataset {
    private final int size, numClasses, featureSize;
    private final int[] featureShape;
    private final long seed;
    private final float[] teacher;
    private final int[] labels;
    private static final float HALF_WIDTH = (float) Math.sqrt(3.0); // uniform(-a, a) has variance a^2 / 3

    public SyntheticDataset(int size, int[] featureShape, int numClasses, long seed) {
        if (size < 0 || numClasses < 1) throw new IllegalArgumentException("SyntheticDataset: size " + size + ", classes " + numClasses);
        this.size = size;
        this.featureShape = featureShape.clone();
        this.numClasses = numClasses;
        this.seed = seed;
        int fs = 1;
        for (int d : featureShape) {
            if (d < 1) throw new IllegalArgumentException("SyntheticDataset: bad feature shape " + java.util.Arrays.toString(featureShape));
            fs *= d;
        }
        this.featureSize = fs;
        this.teacher = new float[numClasses * fs];
        long teacherSeed = CounterRandom.mix64(seed ^ 0x7EAC4E5L);
        for (int i = 0; i < teacher.length; i++) teacher[i] = CounterRandom.normal(teacherSeed, i);
        this.labels = new int[size];
        java.util.Arrays.fill(labels, -1);
    }

    @Override public int size() { return size; }
    @Override public int[] featureShape() { return featureShape.clone(); }
    @Override public int numClasses() { return numClasses; }
    @Override public int featureSize() { return featureSize; }

    @Override
    public void features(int index, float[] dst, int offset) {
        check(index);
        long base = (long) index * featureSize;
        for (int i = 0; i < featureSize; i++) dst[offset + i] = HALF_WIDTH * (2f * CounterRandom.uniform(seed, base + i) - 1f);
    }

    @Override
    public int label(int index) {
        check(index);
        int known = labels[index];
        if (known >= 0) return known;
        float[] x = new float[featureSize];
        features(index, x, 0);
        int best = 0;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int c = 0; c < numClasses; c++) {
            double s = 0;
            for (int i = 0; i < featureSize; i++) s += x[i] * teacher[c * featureSize + i];
            if (s > bestScore) { bestScore = s; best = c; }
        }
        labels[index] = best; // the same value whichever thread writes it
        return best;
    }

    private void check(int index) {
        if (index < 0 || index >= size) throw new IndexOutOfBoundsException("example " + index + " of a data set of " + size);
    }
}
