package org.mpi2nccl.launch;

import mpi.MPI;

/** Prints the Slurm job the rank runs in (SLURM_JOB_ID, set by slurmstepd) after a barrier of all ranks. */
public final class SlurmJobRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        MPI.COMM_WORLD.Barrier();
        System.out.println("SLURM_JOB_ID=" + System.getenv("SLURM_JOB_ID"));
        MPI.Finalize();
    }
}
