package org.mpi2nccl.launch.nodes;

import mpi.MPI;

/** A rank that waits ten minutes: a job that only a timeout ends. */
public final class Sleeper {
    private Sleeper() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Thread.sleep(600_000);
        MPI.Finalize();
    }
}
