package org.mpi2nccl.launch;

import mpi.MPI;

/**
 * Rank programs that end badly, by mode (the first program argument): {@code exit}, rank 1 calls System.exit(3)
 * while the others wait in a barrier; {@code sleep}, rank 1 sleeps (to be killed) while the others wait in a barrier;
 * {@code barrier}, rank 0 sleeps while the others wait in a barrier (rank 1 to be killed there); {@code nofinalize},
 * every rank returns from main without MPI.Finalize; {@code skip}, rank 1 skips the barrier the others wait in. Every rank first prints its pid.
 */
public final class DyingRank {
    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        String mode = rest[0];
        int rank = MPI.COMM_WORLD.Rank();
        System.out.println("rank " + rank + " pid " + ProcessHandle.current().pid());
        switch (mode) {
            case "exit" -> {
                if (rank == 1) {
                    System.out.println("rank 1 exits");
                    System.exit(3);
                }
                MPI.COMM_WORLD.Barrier();
            }
            case "sleep" -> {
                if (rank == 1) Thread.sleep(120_000);
                MPI.COMM_WORLD.Barrier();
            }
            case "barrier" -> {
                if (rank == 0) Thread.sleep(120_000);
                MPI.COMM_WORLD.Barrier();
            }
            case "skip" -> {
                if (rank != 1) MPI.COMM_WORLD.Barrier();
                return;
            }
            case "nofinalize" -> {
                System.out.println("rank " + rank + " returns");
                return;
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
        MPI.Finalize();
    }
}
