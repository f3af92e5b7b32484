package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The convolution kernels behind the Backend contract's im2col and col2im (native/im2col.cu) compiled for the CPU
 * with native/cpu-check/cuda_on_cpu.h and run by native/cpu-check/conv_check.cpp against plain loops: their
 * per-plane index split and shared-memory staging is checked without a GPU (CudaBackendContractTest runs them on one).
 */
class ConvKernelCpuCheckTest {
    @Test
    void im2colAndCol2imOnTheCpu() throws Exception {
        Path source = Path.of("..", "native", "cpu-check", "conv_check.cpp");
        Assumptions.assumeTrue(Files.isRegularFile(source), "native/cpu-check not found from " + Path.of("").toAbsolutePath() + ": skipped");
        Assumptions.assumeTrue(FusedKernelCpuCheckTest.onPath("g++"), "no g++ on PATH: convolution kernel CPU check skipped");
        Path dir = Files.createTempDirectory("conv-check");
        Path binary = dir.resolve("conv_check");
        try {
            String compiled = FusedKernelCpuCheckTest.run(300, "g++", "-std=c++20", "-O1", "-I", Path.of("..", "native").toString(),
                    "-o", binary.toString(), source.toString());
            String output = FusedKernelCpuCheckTest.run(120, binary.toString());
            System.out.print(compiled + output);
            assertTrue(output.contains("conv-check: 6 cases, 0 failures"), output);   // every case ran, none failed
        } finally {
            Files.deleteIfExists(binary);
            Files.deleteIfExists(dir);
        }
    }
}
