package org.mpi2nccl.data;

/** 0, 1, ..., n-1 every epoch (evaluation). */
public final class SequentialSampler implements Sampler {
    private final int n;

    public SequentialSampler(int n) { this.n = n; }

    @Override
    public int[] indices(int epoch) {
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) idx[i] = i;
        return idx;
    }

    @Override
    public int length() { return n; }
}
