package org.mpi2nccl.launch;

import mpi.MPI;

/** Rank 1 throws after Init; the others wait in a barrier that can never complete. */
public final class ThrowingRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        System.out.println("rank " + rank + " started");
        if (rank == 1) throw new IllegalStateException("rank one gives up");
        MPI.COMM_WORLD.Barrier();
        MPI.Finalize();
    }
}
