package org.mpi2nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./build.sh setup} is idempotent: run again right away, it prints nothing and does nothing. A Jupyter data
 * folder it cannot write (a read-only home) is named with what to do, and the set-up goes on.
 */
class BuildSetupTest {
    @Test
    void setupTwiceSecondRunIsSilent() throws Exception {
        Path root = checkout();
        Result first = setup(root);
        assertEquals(0, first.status, "first ./build.sh setup: " + first.output);
        Result second = setup(root);
        assertEquals(0, second.status, "second ./build.sh setup: " + second.output);
        // The one line build.sh prints on every run where there is no nvcc is a notice, not work.
        String said = second.output.replace("GPU kernels: skipped (no nvcc)\n", "");
        assertEquals("", said, "the second set-up found work to do or talked about it");
    }

    @Test
    void aJupyterFolderThatCannotBeWrittenIsNamedAndTheSetupGoesOn(@TempDir Path tmp) throws Exception {
        Path root = checkout();
        Path readOnly = tmp.resolve("home");
        Files.createDirectories(readOnly);
        boolean mounted = ReadOnlyFolder.make(readOnly);
        try {
            Path data = readOnly.resolve("jupyter");
            Result r = setup(root, Map.of("JUPYTER_DATA_DIR", data.toString()));
            assertEquals(0, r.status, "the set-up goes on: " + r.output);
            assertTrue(r.output.contains("warning: the kernel could not be installed for " + System.getProperty("user.name")
                    + " in " + data + "/kernels: "), r.output);
            assertTrue(r.output.contains("make " + data + " writable or set JUPYTER_DATA_DIR to a writable folder"), r.output);
            assertTrue(r.output.contains("Read-only file system") || r.output.contains("Permission denied"), r.output);
        } finally {
            ReadOnlyFolder.undo(readOnly, mounted);
        }
    }

    private static Path checkout() {
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isRegularFile(root.resolve("build.sh"))) root = root.getParent();
        if (root == null) {
            System.out.println("no build.sh above " + Path.of("").toAbsolutePath() + ": skipped");
            Assumptions.abort("no build.sh");
        }
        return root;
    }

    private record Result(int status, String output) {}

    private static Result setup(Path root) throws Exception {
        return setup(root, Map.of());
    }

    private static Result setup(Path root, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("build.sh").toString(), "setup")
                .directory(root.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("./build.sh setup did not end in 10 minutes: " + out);
        }
        return new Result(p.exitValue(), out);
    }

    /** A folder nobody can write: a read-only tmpfs where mounting works (root ignores permission bits), else 0555. */
    private static final class ReadOnlyFolder {
        static boolean make(Path dir) throws Exception {
            Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", dir.toString())
                    .redirectErrorStream(true).start();
            mount.getInputStream().readAllBytes();
            if (mount.waitFor() == 0) return true;
            if ("root".equals(System.getProperty("user.name"))) {
                Assumptions.abort("root, and no read-only tmpfs can be mounted here: nothing is read-only to root");
            }
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("r-xr-xr-x"));
            return false;
        }

        static void undo(Path dir, boolean mounted) throws Exception {
            if (mounted) new ProcessBuilder("umount", dir.toString()).start().waitFor();
            else Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        }
    }
}
