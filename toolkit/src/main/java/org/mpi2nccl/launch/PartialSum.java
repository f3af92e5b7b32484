package org.mpi2nccl.launch;

import java.util.Map;
import mpi.MPI;

/**
 * The first distributed program of the course: the sum 1 + 2 + ... + N, split over the ranks. Each rank adds
 * up its own block of numbers, then {@code Allreduce} with SUM gives every rank the total. Each rank reports
 * its block, its partial sum, the total it received, the exact answer N(N+1)/2 and how long it took.
 *
 * <p>Argument: N (default 100000000).
 */
public final class PartialSum {
    private PartialSum() {}

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        long n = rest.length > 0 ? Long.parseLong(rest[0]) : 100_000_000L;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();

        // Rank r owns the numbers first..last: blocks of n/size, the first n%size ranks one more.
        long base = n / size;
        long extra = n % size;
        long first = 1 + rank * base + Math.min(rank, extra);
        long last = first + base - 1 + (rank < extra ? 1 : 0);

        long start = System.nanoTime();
        long partial = 0;
        for (long i = first; i <= last; i++) partial += i;
        long computeNanos = System.nanoTime() - start;

        long[] total = new long[1];
        MPI.COMM_WORLD.Allreduce(new long[] {partial}, 0, total, 0, 1, MPI.LONG, MPI.SUM);
        long allNanos = System.nanoTime() - start;

        Report.emit(Map.of("range", first + ".." + last, "partial", partial, "allreduced", total[0],
                "expected", n * (n + 1) / 2, "compute_ms", Math.round(computeNanos / 1e4) / 100.0,
                "total_ms", Math.round(allNanos / 1e4) / 100.0));
        MPI.Finalize();
    }
}
