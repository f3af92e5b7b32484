package org.mpi2nccl.kernel.mpj;

import org.mpi2nccl.tensor.Device;

/**
 * Who this rank engine is: its MPI rank, the job's size, its place among the ranks on the same host, and its GPU.
 * Cells on a rank engine have {@code rank}, {@code size}, {@code localRank}, {@code localSize} and {@code gpu}
 * as variables; toolkit code reads them here. On a GPU machine rank engine k uses GPU
 * {@code localRank % gpuCount} ({@link #gpuIndex}, chosen by {@link EngineGpu}).
 *
 * <p>Static fields are per rank even in MPJ's multicore mode, where every rank has its own class loader.
 */
public final class EngineRank {
    private static volatile int rank = -1;
    private static volatile int size;
    private static volatile int localRank = -1;
    private static volatile int localSize;
    private static volatile int gpu = -1;
    private static volatile String gpuName = "";

    private EngineRank() {
    }

    static void set(int rank, int size, int localRank, int localSize) {
        EngineRank.rank = rank;
        EngineRank.size = size;
        EngineRank.localRank = localRank;
        EngineRank.localSize = localSize;
    }

    static void setGpu(int index, String name) {
        EngineRank.gpu = index;
        EngineRank.gpuName = name;
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

    /** This engine's GPU (a CUDA device number), or -1 when it has none. */
    public static int gpu() {
        return gpu;
    }

    /** The name of this engine's GPU ("NVIDIA H200"), or "" when it has none. */
    public static String gpuName() {
        return gpuName;
    }

    /** Where this engine's tensors should live: its own GPU, or the CPU when it has none. */
    public static Device device() {
        return gpu >= 0 ? Device.cuda(gpu) : Device.cpu();
    }

    /** The GPU this rank should use when the host has {@code gpuCount} GPUs: one GPU per rank, round robin. */
    public static int gpuIndex(int gpuCount) {
        if (gpuCount < 1) {
            throw new IllegalArgumentException("no GPU on this host (gpuCount " + gpuCount + "): run on the CPU");
        }
        return Math.max(localRank, 0) % gpuCount;
    }
}
