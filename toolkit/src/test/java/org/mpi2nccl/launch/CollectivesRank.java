package org.mpi2nccl.launch;

import java.util.Map;
import mpi.MPI;

/**
 * A rank program for the launcher tests: runs Allreduce, Bcast and Reduce and reports what it got, so
 * that the test (not the rank) checks the values.
 */
public final class CollectivesRank {
    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();

        long[] mine = {rank + 1L};
        long[] sum = new long[1];
        MPI.COMM_WORLD.Allreduce(mine, 0, sum, 0, 1, MPI.LONG, MPI.SUM);

        double[] root = {rank == 0 ? 42.5 : -1};
        MPI.COMM_WORLD.Bcast(root, 0, 1, MPI.DOUBLE, 0);

        int[] sq = {rank * rank};
        int[] reduced = {-1};
        int reduceRoot = size - 1;
        MPI.COMM_WORLD.Reduce(sq, 0, reduced, 0, 1, MPI.INT, MPI.SUM, reduceRoot);

        System.out.println("rank " + rank + " of " + size + " args " + String.join(",", rest));
        Report.emit(Map.of("size", size, "allreduce", sum[0], "bcast", root[0],
                "reduce", rank == reduceRoot ? reduced[0] : -1, "args", String.join(",", rest),
                "pid", ProcessHandle.current().pid(), "native_access", java.lang.management.ManagementFactory
                        .getRuntimeMXBean().getInputArguments().contains("--enable-native-access=ALL-UNNAMED")));
        MPI.Finalize();
    }
}
