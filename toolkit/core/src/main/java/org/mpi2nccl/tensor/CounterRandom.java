package org.mpi2nccl.tensor;

/**
 * The toolkit's random numbers: a counter-based generator, so element {@code i} of a random fill depends only
 * on {@code (seed, offset + i)}. Every backend computes exactly these functions, hence the same seed gives
 * the same weights on the CPU and on a GPU, and a fill can be split over threads without changing a bit.
 *
 * <p>Bits: {@code x = mix64(seed * 0x9E3779B97F4A7C15L + counter)}, with {@code mix64} the SplitMix64
 * finalizer. Uniform in [0, 1): {@code (x >>> 40) * 2^-24} (24 bits, bit-exact on every device). Normal:
 * Box-Muller on {@code u1 = ((x >>> 40) + 1) * 2^-24} in (0, 1] and {@code u2 = ((x >>> 16) & 0xFFFFFF) * 2^-24},
 * {@code z = sqrt(-2 ln u1) cos(2 pi u2)} computed in double (other devices may differ in the last float ulp).
 */
public final class CounterRandom {
    private CounterRandom() {}

    private static final double TWO_POW_M24 = 1.0 / (1 << 24);

    public static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    public static long bits(long seed, long counter) {
        return mix64(seed * 0x9E3779B97F4A7C15L + counter);
    }

    /** Uniform in [0, 1). */
    public static float uniform(long seed, long counter) {
        return (float) ((bits(seed, counter) >>> 40) * TWO_POW_M24);
    }

    /** Standard normal. */
    public static float normal(long seed, long counter) {
        long x = bits(seed, counter);
        double u1 = ((x >>> 40) + 1) * TWO_POW_M24;
        double u2 = ((x >>> 16) & 0xFFFFFFL) * TWO_POW_M24;
        return (float) (Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2));
    }
}
