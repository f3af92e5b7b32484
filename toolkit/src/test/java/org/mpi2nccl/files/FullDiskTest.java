package org.mpi2nccl.files;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.launch.MpjHome;
import org.mpi2nccl.notebook.Notebook;

/**
 * A full disk (a 1 MiB tmpfs, filled; mounting it needs root, so elsewhere the test says so and skips): a notebook
 * written there and an MPJ job folder made there each fail naming the place and its free space, and leave nothing.
 */
class FullDiskTest {
    @TempDir
    Path tmp;
    private Path full;

    @BeforeEach
    void mountAFullDisk() throws Exception {
        full = Files.createDirectories(tmp.resolve("full"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m,mode=700", "tmpfs", full.toString())
                .redirectErrorStream(true).start();
        String said = new String(mount.getInputStream().readAllBytes()).strip();
        if (mount.waitFor() != 0) {
            System.out.println("skipped: a small tmpfs cannot be mounted here (" + said + "): root only");
            Assumptions.abort("mount tmpfs: " + said);
        }
        try {
            Files.write(full.resolve("filler"), new byte[2 << 20]);
        } catch (IOException expected) {
            // the disk is full now
        }
    }

    @AfterEach
    void unmount() throws Exception {
        if (full != null) new ProcessBuilder("umount", full.toString()).start().waitFor();
    }

    @Test
    void aNotebookWrittenToAFullDiskNamesTheFileAndTheSpace() throws Exception {
        Notebook nb = Notebook.parse("{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {}, \"cells\": [{\"cell_type\":"
                + " \"code\", \"metadata\": {}, \"source\": \"" + "x".repeat(200_000) + "\", \"outputs\": []}]}", "a test");
        Path out = full.resolve("executed.ipynb");
        IOException e = assertThrows(IOException.class, () -> nb.write(out));
        assertTrue(e.getMessage().contains(out.toString()) && e.getMessage().contains("MiB free"), e.getMessage());
        try (var left = Files.list(full)) {
            assertFalse(left.anyMatch(p -> p.getFileName().toString().endsWith(".tmp")), "no half notebook left");
        }
    }

    @Test
    void anMpjJobFolderOnAFullDiskNamesThePlaceAndTheSpace() {
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> MpjHome.locate(null).createJobHome(full, 40001, 40002, 40003));
        assertTrue(e.getMessage().contains(full.toString()) && e.getMessage().contains("MiB free"), e.getMessage());
        try (var left = Files.list(full)) {
            assertTrue(left.allMatch(p -> p.getFileName().toString().equals("filler")), "no half job folder left");
        } catch (IOException io) {
            throw new UncheckedIOException(io);
        }
    }
}
