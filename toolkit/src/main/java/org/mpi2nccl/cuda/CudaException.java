package org.mpi2nccl.cuda;

import jcuda.driver.CUresult;

/** A CUDA driver call failed: names the call, the error code and what the toolkit was doing. */
public class CudaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The CUresult code (see {@link CUresult}). */
    public final int code;

    public CudaException(int code, String what) {
        super(what + " failed: " + CUresult.stringFor(code) + " (" + code + ")" + hint(code));
        this.code = code;
    }

    /** Throws when {@code result} is not CUDA_SUCCESS. */
    static void check(int result, String what) {
        if (result != CUresult.CUDA_SUCCESS) throw new CudaException(result, what);
    }

    private static String hint(int code) {
        return switch (code) {
            case CUresult.CUDA_ERROR_OUT_OF_MEMORY -> ": the GPU is out of memory (close DeviceMemory you no longer need,"
                    + " use a MemoryScope per training step, or lower the batch size)";
            case CUresult.CUDA_ERROR_ILLEGAL_ADDRESS -> ": a kernel touched memory outside its buffers; the context is now"
                    + " unusable (restart the JVM; run compute-sanitizer to find the kernel)";
            case CUresult.CUDA_ERROR_NO_DEVICE -> ": the driver sees no GPU (CUDA_VISIBLE_DEVICES may hide them)";
            case CUresult.CUDA_ERROR_SYSTEM_DRIVER_MISMATCH -> ": the driver library and the kernel module versions differ (reboot or reinstall the driver)";
            case CUresult.CUDA_ERROR_UNSUPPORTED_PTX_VERSION -> ": the driver is older than the nvcc that compiled the"
                    + " kernels (PTX 9.0 needs a CUDA 13 driver, 580 or newer)";
            default -> "";
        };
    }
}
