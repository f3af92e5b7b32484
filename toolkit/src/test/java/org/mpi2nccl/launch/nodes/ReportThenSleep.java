package org.mpi2nccl.launch.nodes;

import java.net.InetAddress;
import mpi.MPI;

/** A rank that sums with the others, says on which node it is, then waits ten minutes: a job to interrupt. */
public final class ReportThenSleep {
    private ReportThenSleep() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        long[] sum = new long[1];
        MPI.COMM_WORLD.Allreduce(new long[] {MPI.COMM_WORLD.Rank() + 1L}, 0, sum, 0, 1, MPI.LONG, MPI.SUM);
        System.out.println("on " + InetAddress.getLocalHost().getHostName() + " sum " + sum[0]);
        Thread.sleep(600_000);
        MPI.Finalize();
    }
}
