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
 * The streaming kernels of native/ (elementwise, fill, the reductions, the tiled transpose) compiled for the CPU
 * and run over edge-case shapes, misaligned views and grid sizes by native/cpu-check/cpu-check.sh: their index
 * arithmetic is checked here, without a GPU (the GPU tests check the same kernels for real where there is one).
 */
class KernelCpuCheckTest {
    @Test
    void streamingKernelsOnTheCpu() throws Exception {
        Path script = Path.of("..", "native", "cpu-check", "cpu-check.sh");
        Assumptions.assumeTrue(Files.isRegularFile(script), "native/cpu-check not found from " + Path.of("").toAbsolutePath() + ": skipped");
        if (!onPath("g++")) {
            System.out.println("no g++ on PATH: kernel CPU check skipped");
            Assumptions.assumeTrue(false, "no g++ on PATH: kernel CPU check skipped");
        }
        Process p = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
        boolean done = p.waitFor(300, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
            fail("cpu-check.sh did not finish in 300 s");
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.print(output);
        assertEquals(0, p.exitValue(), "cpu-check.sh failed:\n" + output);
        assertTrue(output.contains(", 0 failures"), output);
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }
}
