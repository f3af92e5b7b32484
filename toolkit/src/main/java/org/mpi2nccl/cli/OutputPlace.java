package org.mpi2nccl.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A folder a command will write its results into, checked before the command's work starts: a report lost after an
 * experiment of minutes (a read-only folder, a full disk, a file where the folder should be) costs the whole run.
 */
final class OutputPlace {
    /** Bytes written and deleted to find a full disk: enough to fill a last free block, small next to any report. */
    static final int PROBE_BYTES = 1 << 16;

    private OutputPlace() {
    }

    /** Makes {@code dir} (and its parents) and proves it takes a file; else says why, naming {@code option}. */
    static void requireWritable(Path dir, String option) {
        Path probe = null;
        try {
            Files.createDirectories(dir);
            probe = Files.createTempFile(dir, ".mpi2nccl-write-check-", ".tmp");
            try (OutputStream out = Files.newOutputStream(probe)) {
                out.write(new byte[PROBE_BYTES]);
                out.flush();
            }
        } catch (IOException | SecurityException e) {
            throw new IllegalArgumentException(option + " " + dir + ": cannot write there (" + e.getClass().getSimpleName()
                    + ": " + e.getMessage() + "): choose a folder you can write to, on a disk with free space", e);
        } finally {
            if (probe != null) {
                try {
                    Files.deleteIfExists(probe);
                } catch (IOException ignored) {
                    // a probe that cannot be deleted is 64 KiB in a folder the user chose; the check itself passed
                }
            }
        }
    }
}
