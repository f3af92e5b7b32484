package org.mpi2nccl.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import mpi.MPI;

/** Reports which network namespace (host) the rank runs in, and the Allreduce of rank+1 over all ranks. */
public final class HostRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        long[] sum = new long[1];
        MPI.COMM_WORLD.Allreduce(new long[] {rank + 1L}, 0, sum, 0, 1, MPI.LONG, MPI.SUM);
        String net = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        System.out.println("rank " + rank + " in " + net + " allreduce " + sum[0]);
        Report.emit(Map.of("net", net, "allreduce", sum[0]));
        MPI.Finalize();
    }
}
