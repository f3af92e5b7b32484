package org.mpi2nccl.data;

import org.mpi2nccl.tensor.Rng;

/** A fresh permutation each epoch, a function of (seed, epoch) only: same seed, same order, on every rank. */
public final class RandomSampler implements Sampler {
    private final int n;
    private final long seed;

    public RandomSampler(int n, long seed) {
        this.n = n;
        this.seed = seed;
    }

    @Override
    public int[] indices(int epoch) { return permutation(n, seed, epoch); }

    @Override
    public int length() { return n; }

    /** Fisher-Yates shuffle of 0..n-1 from (seed, epoch). */
    public static int[] permutation(int n, long seed, int epoch) {
        Rng rng = new Rng(seed).derive(epoch);
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) idx[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
        return idx;
    }
}
