package org.mpi2nccl.comm.nccl;

import java.util.Map;
import java.util.TreeMap;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nccl;
import org.bytedeco.javacpp.Loader;
import org.mpi2nccl.cuda.CudaLibraries;
import org.mpi2nccl.cuda.CudaUnavailableException;
import org.mpi2nccl.cuda.NativeLibrary;

/**
 * Loads the native side of the NCCL binding: JavaCPP's {@code libjninccl.so} needs {@code libnccl.so.2} and
 * {@code libjnicudart.so} needs {@code libcudart.so.13}. They are found by the toolkit's one library search
 * ({@link CudaLibraries}: {@code NCCL_HOME}, {@code CUDA_HOME}, {@code LD_LIBRARY_PATH}, the NVIDIA pip wheels
 * in Python's site-packages, the usual system folders) and loaded by absolute path first, so the JNI
 * libraries find them already in the process.
 */
public final class NcclNatives {
    private static String failure;
    private static boolean loaded;

    private NcclNatives() {
    }

    /** Loads cudart and NCCL (once); throws {@link NcclUnavailableException} saying what is missing. */
    public static synchronized void load() {
        if (loaded) {
            return;
        }
        if (failure != null) {
            throw new NcclUnavailableException(failure);
        }
        // Not found by the search: the dynamic linker may still know the library (ldconfig), so JavaCPP's
        // load is tried anyway; if it fails too, the search's explanation is the useful message.
        String searchProblem = null;
        for (NativeLibrary library : new NativeLibrary[] {NativeLibrary.CUDART, NativeLibrary.NCCL}) {
            try {
                CudaLibraries.load(library);
            } catch (CudaUnavailableException e) {
                if (searchProblem == null) {
                    searchProblem = e.getMessage();
                }
            }
        }
        try {
            Loader.load(cudart.class);
            Loader.load(nccl.class);
            loaded = true;
        } catch (Throwable t) {
            if (!CudaLibraries.find(NativeLibrary.DRIVER).found()) {
                failure = "no NVIDIA driver here: " + CudaLibraries.find(NativeLibrary.DRIVER).explain();
            } else if (searchProblem != null) {
                failure = searchProblem;
            } else {
                failure = "the NCCL binding did not load: " + t;
            }
            throw new NcclUnavailableException(failure);
        }
    }

    /** Number of CUDA devices, or 0 (with {@link #whyNoGpu()} telling why) when there is no usable GPU. */
    public static synchronized int gpuCount() {
        try {
            load();
            int[] n = {0};
            int err = cudart.cudaGetDeviceCount(n);
            if (err != cudart.cudaSuccess) {
                failure = "cudaGetDeviceCount: " + cudart.cudaGetErrorString(err).getString();
                loaded = false;
                return 0;
            }
            return n[0];
        } catch (NcclUnavailableException e) {
            return 0;
        }
    }

    /** Why {@link #gpuCount()} returned 0 (null if it did not). */
    public static synchronized String whyNoGpu() {
        return failure;
    }

    /** The version of the NCCL library that was loaded, as "2.28.9". */
    public static String version() {
        load();
        int[] v = {0};
        nccl.ncclGetVersion(v);
        int code = v[0];
        // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9
        return (code / 10000) + "." + (code / 100 % 100) + "." + (code % 100);
    }

    /** The NCCL_* variables this process sees (what NCCL will read), for reports. */
    public static Map<String, String> environment() {
        Map<String, String> out = new TreeMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("NCCL_")) {
                out.put(k, v);
            }
        });
        return out;
    }
}
