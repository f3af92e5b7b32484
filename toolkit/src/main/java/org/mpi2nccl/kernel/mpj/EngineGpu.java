package org.mpi2nccl.kernel.mpj;

import org.bytedeco.cuda.global.cudart;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.cuda.CudaLibraries;
import org.mpi2nccl.cuda.NativeLibrary;
import org.mpi2nccl.doctor.Gpus;

/**
 * Which GPU a rank engine uses: on a host with G GPUs, local rank k takes GPU {@code k % G} (on one host the
 * local rank is the rank). Cells read it as {@code gpu} (-1 without one) or {@link EngineRank#device()}, and the
 * CUDA runtime's current device on every cell thread is that GPU, so that plain runtime calls in a cell (and
 * libraries that use the current device) land on the rank's own GPU instead of all on GPU 0.
 *
 * <p>Only for engines in a JVM of their own (niodev): a JNI library loads into one class loader per JVM, so
 * under MPJ multicore only one rank could use CUDA.
 */
record EngineGpu(int index, String name, String note) {
    static final EngineGpu NONE = new EngineGpu(-1, "", "");

    /**
     * Selects this rank's GPU. A host without an NVIDIA driver is recognised without loading any CUDA library.
     *
     * @param ownJvm whether this engine has a JVM of its own (niodev)
     */
    static EngineGpu select(int localRank, boolean ownJvm) {
        if (Gpus.visibleCount() == 0) {
            return NONE;
        }
        if (!ownJvm) {
            return new EngineGpu(-1, "", "the GPUs are not used under MPJ multicore (CUDA loads for one rank only):"
                    + " start the engines with --device niodev");
        }
        if (!Cuda.isAvailable()) {
            return new EngineGpu(-1, "", "no usable GPU: " + Cuda.unavailableReason());
        }
        int index = EngineRank.gpuIndex(Cuda.deviceCount());
        return new EngineGpu(index, Cuda.device(index).name, "");
    }

    boolean present() {
        return index >= 0;
    }

    /**
     * Makes this GPU the CUDA runtime's current device on the calling thread (each cell runs on a fresh thread).
     * Returns null, or why it could not (no CUDA runtime library: cells then choose devices themselves).
     */
    String makeCurrent() {
        try {
            CudaLibraries.load(NativeLibrary.CUDART);
            int r = cudart.cudaSetDevice(index);
            return r == cudart.cudaSuccess ? null : "cudaSetDevice(" + index + ") failed with error " + r;
        } catch (RuntimeException | LinkageError e) {
            return "the CUDA runtime could not be loaded (" + e.getMessage() + "): cells choose their GPU themselves";
        }
    }
}
