package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The streaming kernels of native/ (elementwise, fill, the reductions, the tiled transpose) compiled for the CPU
 * and run over edge-case shapes, misaligned views and grid sizes by native/cpu-check/cpu-check.sh: their index
 * arithmetic is checked here, without a GPU (the GPU tests check the same kernels for real where there is one).
 */
class KernelCpuCheckTest {
    @Test
    void streamingKernelsOnTheCpu() throws Exception {
        String script = CpuCheckRun.require("cpu-check.sh").toString();
        String output = CpuCheckRun.run(300, "bash", script);
        System.out.print(output);
        assertTrue(output.contains(", 0 failures"), output);
    }
}
