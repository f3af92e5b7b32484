package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The training-layer kernels behind the Backend contract's batchNormForward/Backward, batchNormReluPoolForward/Backward,
 * softmaxCrossEntropy/Backward, addBatchMetrics, sgdSteps, adamSteps and reluBackward (native/batchnorm.cu,
 * bn_relu_pool.cu, cross_entropy.cu, optim.cu, activation.cu) compiled for the CPU with
 * native/cpu-check/cuda_on_cpu.h and run by native/cpu-check/fused_check.cpp against plain loops, so their index
 * arithmetic, block reductions and bad-label flag are checked without a GPU (CudaBackendContractTest runs them on one).
 */
class FusedKernelCpuCheckTest {
    @Test
    void trainingLayerKernelsOnTheCpu() throws Exception {
        String output = CpuCheckRun.compileAndRun("fused_check.cpp");
        assertTrue(output.contains("fused-check: 24 cases, 0 failures"), output);   // every case ran, none failed
    }
}
