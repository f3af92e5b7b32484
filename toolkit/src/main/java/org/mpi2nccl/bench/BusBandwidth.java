package org.mpi2nccl.bench;

import org.mpi2nccl.comm.Collective;

/**
 * nccl-tests' bandwidth arithmetic. {@code algbw = size / time}; {@code busbw = algbw * factor}, where the
 * factor turns "bytes of the result" into "bytes each link had to carry" for an optimal algorithm, so that
 * busbw is comparable across collectives and rank counts and with the hardware's link speed:
 * <ul>
 *   <li>all-reduce: 2(n-1)/n (a reduce-scatter and an all-gather, each moving (n-1)/n of the data);</li>
 *   <li>all-gather, reduce-scatter: (n-1)/n (size = the whole gathered / scattered buffer);</li>
 *   <li>broadcast, reduce, send/recv: 1.</li>
 * </ul>
 */
public final class BusBandwidth {
    private BusBandwidth() {
    }

    /** The factor from algorithm bandwidth to bus bandwidth for {@code ranks} ranks. */
    public static double factor(Collective c, int ranks) {
        double n = ranks;
        return switch (c) {
            case ALL_REDUCE -> 2 * (n - 1) / n;
            case ALL_GATHER, REDUCE_SCATTER -> (n - 1) / n;
            case BROADCAST, REDUCE, SEND_RECV -> 1;
            case BARRIER, SPLIT -> throw new IllegalArgumentException(c.label() + " moves no data to measure");
        };
    }

    /** GB/s (10^9 bytes per second) for {@code bytes} in {@code seconds}. */
    public static double algbw(long bytes, double seconds) {
        return bytes / seconds / 1e9;
    }

    public static double busbw(Collective c, int ranks, long bytes, double seconds) {
        return algbw(bytes, seconds) * factor(c, ranks);
    }
}
