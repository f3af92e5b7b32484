package org.mpi2nccl.parallel;

import org.mpi2nccl.data.RandomSampler;
import org.mpi2nccl.data.Sampler;

/**
 * This rank's share of a data set: every epoch the whole index range is shuffled from (seed, epoch) -- the
 * same permutation on every rank, because every rank computes it from the same two numbers -- and rank r
 * takes positions r, r + N, r + 2N, ... of it. The shares are disjoint, together they are the epoch, and
 * the k-th batch of B/N examples of all N ranks together is exactly the k-th batch of B examples of a
 * single rank with the same seed. That is what makes N ranks equivalent to one rank with an N times larger
 * batch (the correctness proof in {@link EquivalenceCheck}).
 *
 * <p>When N does not divide the data set size the ranks must still agree on how many examples each one
 * visits, or one rank would run a step the others skip and the all-reduce would wait forever. The
 * {@link Tail} policy says how, identically on every rank:
 * <ul>
 *   <li>{@link Tail#PAD} (training default, as PyTorch): each rank gets ceil(n/N); the shortfall is filled
 *       with the first examples of the permutation again;</li>
 *   <li>{@link Tail#DROP}: each rank gets floor(n/N); the last n mod N of the permutation are skipped this
 *       epoch (a different few each epoch);</li>
 *   <li>{@link Tail#UNEVEN} (evaluation): every example exactly once, the first n mod N ranks one more.
 *       Only for loops that do no collective per batch (evaluation sums its counts once at the end).</li>
 * </ul>
 * For example, 50000 examples on 8 ranks: 6250 each.
 */
public final class DistributedSampler implements Sampler {

    /** What to do with the n mod N examples that do not divide evenly over the ranks. */
    public enum Tail { PAD, DROP, UNEVEN }

    private final int datasetSize;
    private final int rank;
    private final int ranks;
    private final long seed;
    private final boolean shuffle;
    private final Tail tail;

    /**
     * @param datasetSize examples in the data set (the same number on every rank: check it, see
     *                    {@link DataChecks#sameDataset})
     * @param rank        this rank, 0..ranks-1
     * @param ranks       number of ranks
     * @param seed        shuffling seed, the same on every rank
     * @param shuffle     false: positions in index order (evaluation)
     * @param tail        how uneven tails are handled
     */
    public DistributedSampler(int datasetSize, int rank, int ranks, long seed, boolean shuffle, Tail tail) {
        if (ranks < 1) throw new IllegalArgumentException("DistributedSampler: need at least 1 rank, got " + ranks);
        if (rank < 0 || rank >= ranks)
            throw new IllegalArgumentException("DistributedSampler: rank " + rank + " is not one of 0.." + (ranks - 1));
        if (datasetSize < 0) throw new IllegalArgumentException("DistributedSampler: negative data set size " + datasetSize);
        this.datasetSize = datasetSize;
        this.rank = rank;
        this.ranks = ranks;
        this.seed = seed;
        this.shuffle = shuffle;
        this.tail = tail;
        if (tail != Tail.UNEVEN && datasetSize < ranks) {
            // Rank datasetSize and above would get no example of its own (PAD would hand it copies of others').
            throw new IllegalArgumentException("empty shard: a data set of " + datasetSize + " examples leaves rank " + datasetSize
                    + " of " + ranks + " ranks without an example of its own; use at least " + ranks + " examples or at most "
                    + Math.max(1, datasetSize) + " ranks");
        }
    }

    /** A shuffled training sampler with padded tails. */
    public static DistributedSampler training(int datasetSize, int rank, int ranks, long seed) {
        return new DistributedSampler(datasetSize, rank, ranks, seed, true, Tail.PAD);
    }

    /** Every example once, in order, spread over the ranks (evaluation). */
    public static DistributedSampler evaluation(int datasetSize, int rank, int ranks) {
        return new DistributedSampler(datasetSize, rank, ranks, 0, false, Tail.UNEVEN);
    }

    @Override
    public int length() {
        return switch (tail) {
            case PAD -> (datasetSize + ranks - 1) / ranks;
            case DROP -> datasetSize / ranks;
            case UNEVEN -> datasetSize / ranks + (rank < datasetSize % ranks ? 1 : 0);
        };
    }

    /** Examples of all ranks together in one epoch (padding counted). */
    public int totalLength() {
        return switch (tail) {
            case PAD -> ((datasetSize + ranks - 1) / ranks) * ranks;
            case DROP -> (datasetSize / ranks) * ranks;
            case UNEVEN -> datasetSize;
        };
    }

    @Override
    public int[] indices(int epoch) {
        int[] order = shuffle ? RandomSampler.permutation(datasetSize, seed, epoch) : identity(datasetSize);
        int n = length();
        int[] mine = new int[n];
        for (int i = 0; i < n; i++) {
            int position = rank + i * ranks;           // < totalLength(); wraps around only when padding
            mine[i] = order[datasetSize == 0 ? 0 : position % datasetSize];
        }
        return mine;
    }

    public int rank() { return rank; }

    public int ranks() { return ranks; }

    public Tail tail() { return tail; }

    private static int[] identity(int n) {
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) idx[i] = i;
        return idx;
    }

    @Override
    public String toString() {
        return "DistributedSampler[rank " + rank + " of " + ranks + ": " + length() + " of " + datasetSize + " examples, "
                + (shuffle ? "shuffled with seed " + seed : "in order") + ", tail " + tail + "]";
    }
}
