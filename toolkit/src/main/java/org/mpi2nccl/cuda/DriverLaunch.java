package org.mpi2nccl.cuda;

import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.PointerPointer;

/**
 * How one context queues its kernels: cuLaunchKernel through JavaCPP's driver binding, on the context's stream
 * (wrapped once), with the arguments packed into one reusable native block ({@link KernelParamBlock}) and the
 * function handles wrapped once per kernel. Packing is plain memory stores, with no object or JNI call per
 * argument: a launch costs the host a few microseconds, which is what bounds a small model's training step.
 * <p>Threads: the block is shared by every thread that launches on this context and guarded by this object's lock
 * (packing and the call, a few microseconds): launches into one stream are serialized by the driver anyway, and a
 * single block per context keeps its lifetime plain (it lives as long as the context; {@link #close} frees it).
 * Launching threads today: the training thread, and the all-reduce thread of the host-staged (MPI) route.
 */
final class DriverLaunch implements AutoCloseable {
    /** In words, for the doctor and the benchmarks. */
    static final String DESCRIPTION = "JavaCPP cuLaunchKernel, arguments packed into a reusable native block";

    private final CUstream_st stream;
    private final KernelParamBlock params = new KernelParamBlock();

    /**
     * @param streamAddress the context's stream (a CUstream)
     * @throws CudaUnavailableException or LinkageError where JavaCPP's cudart binding cannot be loaded
     */
    DriverLaunch(long streamAddress) {
        CudaLibraries.load(NativeLibrary.CUDART);   // by absolute path, before JavaCPP's libjnicudart asks for it by name
        Loader.load(cudart.class);
        stream = new CUstream_st(new Handles.JavaCppAddress(streamAddress));
    }

    /** The function handle as JavaCPP takes it (build it once per kernel: {@link KernelModules#driverFunction}). */
    static CUfunc_st function(long address) {
        return new CUfunc_st(new Handles.JavaCppAddress(address));
    }

    /** Queues {@code function} with {@code blocks} x {@link Kernel#BLOCK_THREADS} threads; returns the CUresult. */
    synchronized int launch(CUfunc_st function, int blocks, KernelArgs args) {
        params.write(args);
        return cudart.cuLaunchKernel(function, blocks, 1, 1, Kernel.BLOCK_THREADS, 1, 1, 0, stream, params.table(), (PointerPointer<?>) null);
    }

    @Override
    public synchronized void close() {
        params.close();
    }
}
