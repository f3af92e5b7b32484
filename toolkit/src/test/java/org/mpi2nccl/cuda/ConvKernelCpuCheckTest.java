package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The convolution kernels behind the Backend contract's im2col and col2im (native/im2col.cu), and max pooling
 * (native/pool.cu), compiled for the CPU with native/cpu-check/cuda_on_cpu.h and run by
 * native/cpu-check/conv_check.cpp against plain loops: their per-plane index split and shared-memory staging are
 * checked without a GPU (CudaBackendContractTest runs them on one).
 */
class ConvKernelCpuCheckTest {
    @Test
    void im2colCol2imAndMaxPoolingOnTheCpu() throws Exception {
        String output = CpuCheckRun.compileAndRun("conv_check.cpp");
        assertTrue(output.contains("conv-check: 8 cases, 0 failures"), output);   // every case ran, none failed
    }
}
