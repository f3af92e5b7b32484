package org.mpi2nccl.tensor.cpu;

import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Splits index ranges over the CPU cores (the calling thread plus the common fork-join pool). Work smaller
 * than the grain runs inline: forking costs microseconds, more than a small loop.
 */
final class Parallel {
    private Parallel() {}

    interface Range { void run(int from, int to); }

    static final int THREADS = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(),
            ForkJoinPool.getCommonPoolParallelism() + 1));

    /** Runs {@code body} over [0, n) in up to THREADS contiguous chunks when n * costPerItem is large enough. */
    static void range(int n, long costPerItem, Range body) {
        long work = (long) n * Math.max(1, costPerItem);
        int chunks = (int) Math.min(Math.min(THREADS, n), Math.max(1, work / 32_768));
        if (chunks <= 1) {
            if (n > 0) body.run(0, n);
            return;
        }
        IntStream.range(0, chunks).parallel().forEach(c -> {
            int from = (int) ((long) n * c / chunks), to = (int) ((long) n * (c + 1) / chunks);
            if (from < to) body.run(from, to);
        });
    }
}
