package org.mpi2nccl.launch;

import mpi.MPI;

/** The last rank waits for a message nobody sends; the others finish. */
public final class HangingRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        if (rank == size - 1) {
            int[] buf = new int[1];
            MPI.COMM_WORLD.Recv(buf, 0, 1, MPI.INT, 0, 99);
        }
        System.out.println("rank " + rank + " done");
    }
}
