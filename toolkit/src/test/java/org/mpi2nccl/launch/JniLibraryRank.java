package org.mpi2nccl.launch;

import mpi.MPI;

/**
 * Loads a native library (the path in its first argument), as JCuda does in its static initialiser. In one
 * JVM, a library can be loaded by one class loader only: the second multicore rank fails, niodev ranks
 * (one JVM each) do not.
 */
public final class JniLibraryRank {
    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        // Ranks load one after another, so the failing rank is always the second one to try.
        for (int turn = 0; turn < MPI.COMM_WORLD.Size(); turn++) {
            if (turn == rank) System.load(rest[0]);
            MPI.COMM_WORLD.Barrier();
        }
        System.out.println("rank " + rank + " loaded " + rest[0]);
        MPI.Finalize();
    }
}
