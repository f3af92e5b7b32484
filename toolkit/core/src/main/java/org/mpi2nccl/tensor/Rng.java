package org.mpi2nccl.tensor;

/**
 * A seeded source of random arrays: a seed plus a counter that every draw advances, on top of
 * {@link CounterRandom}. Same seed, same sequence of calls -> the same numbers, on any device.
 */
public final class Rng {
    private final long seed;
    private long counter;

    public Rng(long seed) { this.seed = seed; }

    public long seed() { return seed; }

    /** Reserves {@code n} counters and returns the first. */
    public synchronized long advance(long n) {
        long first = counter;
        counter += n;
        return first;
    }

    /** A generator for a sub-task (a layer, a rank, an epoch) whose numbers do not overlap this one's. */
    public Rng derive(long stream) {
        return new Rng(CounterRandom.mix64(seed ^ CounterRandom.mix64(stream + 0x632BE59BD9B4E019L)));
    }

    /** A host-side uniform double in [0,1) (shuffles and other small host decisions). */
    public double nextDouble() {
        long c = advance(1);
        return (CounterRandom.bits(seed, c) >>> 11) * 0x1.0p-53;
    }

    /** A host-side uniform int in [0, bound). */
    public int nextInt(int bound) {
        if (bound <= 0) throw new IllegalArgumentException("bound must be positive, got " + bound);
        return (int) (nextDouble() * bound);
    }
}
