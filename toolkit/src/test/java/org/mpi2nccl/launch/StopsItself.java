package org.mpi2nccl.launch;

import mpi.MPI;

/** Rank 1 stops its own JVM (SIGSTOP) before a barrier the others wait in; once continued, every rank passes it. */
public final class StopsItself {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        if (MPI.COMM_WORLD.Rank() == 1) {
            new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid())).start().waitFor();
        }
        MPI.COMM_WORLD.Barrier();
        System.out.println("passed the barrier");
        MPI.Finalize();
    }
}
