package org.mpi2nccl.cuda;

import java.util.List;

/**
 * The NVIDIA shared libraries the GPU side needs, by the exact file name (soname) the binaries link:
 * JCuda's driver binding links {@code libcuda.so.1}; JavaCPP's cuda 13.x preset links the CUDA 13
 * runtime and cuBLAS and NCCL 2. Each knows which environment variable names its install folder.
 */
public enum NativeLibrary {
    DRIVER("libcuda.so.1", "libcuda.so.", "the NVIDIA driver (installed with the GPU driver, not with CUDA)", null),
    CUDART("libcudart.so.13", "libcudart.so.", "the CUDA 13 runtime", "CUDA_HOME"),
    CUBLAS_LT("libcublasLt.so.13", "libcublasLt.so.", "cuBLASLt (CUDA 13), needed by cuBLAS", "CUDA_HOME"),
    CUBLAS("libcublas.so.13", "libcublas.so.", "cuBLAS (CUDA 13): GEMM", "CUDA_HOME"),
    NCCL("libnccl.so.2", "libnccl.so.", "NCCL 2: GPU collectives", "NCCL_HOME");

    /** The file name the dynamic linker looks for. */
    public final String soname;
    /** Prefix of other versions of the same library (to say "found libcudart.so.12, but 13 is needed"). */
    final String familyPrefix;
    /** What it is, for people. */
    public final String description;
    /** The environment variable naming its install folder ({@code <HOME>/lib} or {@code lib64}), or null. */
    public final String homeVariable;

    NativeLibrary(String soname, String familyPrefix, String description, String homeVariable) {
        this.soname = soname;
        this.familyPrefix = familyPrefix;
        this.description = description;
        this.homeVariable = homeVariable;
    }

    /** The libraries cuBLAS needs, in load order (dependencies first). */
    public static List<NativeLibrary> runtimeAndBlas() {
        return List.of(CUDART, CUBLAS_LT, CUBLAS);
    }
}
