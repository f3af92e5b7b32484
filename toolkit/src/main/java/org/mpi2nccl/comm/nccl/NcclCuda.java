package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.cudart.cudaGetDevice;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreate;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;

import org.bytedeco.cuda.cudart.CUstream_st;
import org.mpi2nccl.comm.CommException;

/** The CUDA runtime calls a communicator makes around NCCL: the device, its stream, errors as exceptions. */
final class NcclCuda {
    private NcclCuda() {
    }

    static void check(int cudaError, int rank, String what) {
        if (cudaError != cudaSuccess) {
            throw new CommException("rank " + rank + ": " + what + " failed: CUDA error " + cudaError + " ("
                    + cudaGetErrorString(cudaError).getString() + ")");
        }
    }

    static void setDevice(int device, int rank) {
        check(cudaSetDevice(device), rank, "cudaSetDevice(" + device + ")");
    }

    /** The number of GPUs; none is an error saying why and what to use instead. */
    static int requireGpus() {
        int gpus = NcclNatives.gpuCount();
        if (gpus == 0) {
            throw new NcclUnavailableException("no GPU usable by NCCL here: " + NcclNatives.whyNoGpu()
                    + " (use MpjCommunicator or RingCommunicator on the CPU)");
        }
        return gpus;
    }

    /**
     * The GPU of {@code rank}: {@link NcclOptions#device} when set, else {@code rank % GPUs} (one rank per GPU on each
     * host). Checks that the rank is a rank of {@code size} and that the device exists.
     */
    static int deviceOf(int rank, int size, NcclOptions options) {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("NCCL init: rank " + rank + " of " + size + " is not a rank (0.." + (size - 1) + ")");
        }
        int gpus = requireGpus();
        int device = options.device() >= 0 ? options.device() : rank % gpus;
        if (device >= gpus) {
            throw new IllegalArgumentException("rank " + rank + ": CUDA device " + device + " does not exist (this process sees "
                    + gpus + " GPU(s); check CUDA_VISIBLE_DEVICES)");
        }
        return device;
    }

    /** The caller's stream ({@link NcclOptions#stream}) or a new one on the current device. */
    static CUstream_st makeStream(NcclOptions options, int rank) {
        if (options.stream() != 0) {
            CUstream_st given = new CUstream_st(Addresses.at(options.stream()));
            if (given.address() != options.stream()) {
                throw new IllegalStateException("rank " + rank + ": the stream handle " + Addresses.hex(options.stream())
                        + " became " + Addresses.hex(given.address()) + " in JavaCPP");
            }
            return given;
        }
        // A blocking stream: ordered after work on the legacy default stream, as the caller expects.
        CUstream_st s = new CUstream_st();
        check(cudaStreamCreate(s), rank, "cudaStreamCreate");
        return s;
    }

    /** "stream 0x..., rank's GPU cuda:1 (this thread's current device: cuda:1)" for error messages. */
    static String streamAndDevice(CUstream_st stream, int device) {
        int[] current = {-1};
        int r = cudaGetDevice(current);
        return "stream " + Addresses.hex(stream.address()) + ", rank's GPU cuda:" + device + " (this thread's current device: "
                + (r == cudaSuccess ? "cuda:" + current[0] : "unknown, cudaGetDevice error " + r) + ")";
    }
}
