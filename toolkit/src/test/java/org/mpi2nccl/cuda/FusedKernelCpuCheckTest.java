package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
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
        Path source = Path.of("..", "native", "cpu-check", "fused_check.cpp");
        Assumptions.assumeTrue(Files.isRegularFile(source), "native/cpu-check not found from " + Path.of("").toAbsolutePath() + ": skipped");
        if (!onPath("g++")) {
            System.out.println("no g++ on PATH: fused kernel CPU check skipped");
            Assumptions.assumeTrue(false, "no g++ on PATH: fused kernel CPU check skipped");
        }
        Path dir = Files.createTempDirectory("fused-check");
        Path binary = dir.resolve("fused_check");
        try {
            String compiled = run(300, "g++", "-std=c++20", "-O1", "-I", Path.of("..", "native").toString(), "-o", binary.toString(), source.toString());
            String output = run(120, binary.toString());
            System.out.print(compiled + output);
            assertTrue(output.contains("fused-check: 24 cases, 0 failures"), output);   // every case ran, none failed
        } finally {
            Files.deleteIfExists(binary);
            Files.deleteIfExists(dir);
        }
    }

    static String run(int seconds, String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", command) + " did not finish in " + seconds + " s");
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), String.join(" ", command) + " failed:\n" + output);
        return output;
    }

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }
}
