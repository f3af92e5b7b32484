package org.mpi2nccl;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The repository a test reads files of (notebooks, results): the nearest folder at or above the working folder that
 * holds build.sh. Maven runs the tests in toolkit/, the bundle's test runner in the repository's root.
 */
public final class Checkout {
    private Checkout() {
    }

    public static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("build.sh"))) dir = dir.getParent();
        assertNotNull(dir, "no build.sh at or above " + Path.of("").toAbsolutePath() + ": run from the repository");
        return dir;
    }

    public static Path notebooks() {
        return root().resolve("notebooks");
    }
}
