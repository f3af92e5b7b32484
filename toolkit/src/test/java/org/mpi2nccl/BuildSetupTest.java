package org.mpi2nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** {@code ./build.sh setup} is idempotent: run again right away, it prints nothing and does nothing. */
class BuildSetupTest {
    @Test
    void setupTwiceSecondRunIsSilent() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isRegularFile(root.resolve("build.sh"))) root = root.getParent();
        if (root == null) {
            System.out.println("no build.sh above " + Path.of("").toAbsolutePath() + ": skipped");
            Assumptions.abort("no build.sh");
        }
        Result first = setup(root);
        assertEquals(0, first.status, "first ./build.sh setup: " + first.output);
        Result second = setup(root);
        assertEquals(0, second.status, "second ./build.sh setup: " + second.output);
        // The one line build.sh prints on every run where there is no nvcc is a notice, not work.
        String said = second.output.replace("GPU kernels: skipped (no nvcc)\n", "");
        assertEquals("", said, "the second set-up found work to do or talked about it");
    }

    private record Result(int status, String output) {}

    private static Result setup(Path root) throws Exception {
        Process p = new ProcessBuilder("bash", root.resolve("build.sh").toString(), "setup")
                .directory(root.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("./build.sh setup did not end in 10 minutes: " + out);
        }
        return new Result(p.exitValue(), out);
    }
}
