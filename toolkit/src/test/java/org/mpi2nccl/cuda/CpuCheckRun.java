package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs the CPU checks of native/cpu-check (the kernels compiled for the CPU with cuda_on_cpu.h) for the tests that
 * hold them: skips, saying why, where the folder or g++ is missing, and fails on a check that does not finish or
 * exits with an error.
 */
final class CpuCheckRun {
    static final Path FOLDER = Path.of("..", "native", "cpu-check");

    private CpuCheckRun() {
    }

    /** Skips the calling test unless {@code file} of native/cpu-check and g++ are there; returns the file's path. */
    static Path require(String file) {
        Path path = FOLDER.resolve(file);
        Assumptions.assumeTrue(Files.isRegularFile(path), "native/cpu-check not found from " + Path.of("").toAbsolutePath() + ": skipped");
        if (!onPath("g++")) {
            System.out.println("no g++ on PATH: " + file + " skipped");
            Assumptions.assumeTrue(false, "no g++ on PATH: " + file + " skipped");
        }
        return path;
    }

    /** Compiles {@code file} (a check's main, -O1 as cpu-check.sh builds) and runs it; returns what it printed. */
    static String compileAndRun(String file) throws Exception {
        Path source = require(file);
        Path dir = Files.createTempDirectory("cpu-check");
        Path binary = dir.resolve(file.replace(".cpp", ""));
        try {
            String compiled = run(300, "g++", "-std=c++20", "-O1", "-I", FOLDER.getParent().toString(), "-o", binary.toString(), source.toString());
            String output = run(120, binary.toString());
            System.out.print(compiled + output);
            return output;
        } finally {
            Files.deleteIfExists(binary);
            Files.deleteIfExists(dir);
        }
    }

    /** Runs {@code command} for at most {@code seconds}; fails unless it exits with 0. Returns its output. */
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

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }
}
