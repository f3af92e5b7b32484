package org.mpi2nccl.kernel.mpj;

/**
 * Who this rank engine is: its MPI rank, the job's size, and its place among the ranks on the same host. Cells
 * on a rank engine have {@code rank}, {@code size} and {@code localRank} as variables; toolkit code reads them
 * here. On a GPU machine rank engine k uses GPU {@code localRank % gpuCount} ({@link #gpuIndex}).
 *
 * <p>Static fields are per rank even in MPJ's multicore mode, where every rank has its own class loader.
 */
public final class EngineRank {
    private static volatile int rank = -1;
    private static volatile int size;
    private static volatile int localRank = -1;
    private static volatile int localSize;

    private EngineRank() {
    }

    static void set(int rank, int size, int localRank, int localSize) {
        EngineRank.rank = rank;
        EngineRank.size = size;
        EngineRank.localRank = localRank;
        EngineRank.localSize = localSize;
    }

    /** Whether this code runs on a rank engine (false in the kernel itself and in plain programs). */
    public static boolean isEngine() {
        return rank >= 0;
    }

    public static int rank() {
        return rank;
    }

    public static int size() {
        return size;
    }

    /** The index of this rank among the ranks on its host (0 .. localSize-1). */
    public static int localRank() {
        return localRank;
    }

    public static int localSize() {
        return localSize;
    }

    /** The GPU this rank should use when the host has {@code gpuCount} GPUs: one GPU per rank, round robin. */
    public static int gpuIndex(int gpuCount) {
        if (gpuCount < 1) {
            throw new IllegalArgumentException("no GPU on this host (gpuCount " + gpuCount + "): run on the CPU");
        }
        return Math.max(localRank, 0) % gpuCount;
    }
}
