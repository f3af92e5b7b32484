package org.mpi2nccl.comm.shm;

import org.mpi2nccl.comm.CommException;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared memory that is full (a small tmpfs stands in for a full /dev/shm; mounting it needs root, so elsewhere the
 * test says so and skips): the transport says shared memory is full, with what is free and what is needed, at its
 * start, instead of a rank crashing later in "an unsafe memory access".
 */
class ShmFullTest {
    @Test
    void aFullSharedMemoryIsNamedAtTheStart(@TempDir Path tmp) throws Exception {
        Path small = Files.createDirectories(tmp.resolve("shm"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m,mode=700", "tmpfs", small.toString())
                .redirectErrorStream(true).start();
        String said = new String(mount.getInputStream().readAllBytes());
        if (mount.waitFor() != 0) {
            System.out.println("skipped: a small tmpfs cannot be mounted here (" + said.strip() + "): root only");
            Assumptions.abort("mount tmpfs: " + said.strip());
        }
        try {
            CommException e = assertThrows(CommException.class,
                    () -> ShmTransport.openIn(small.resolve("job"), 0, 2, 8, 256 * 1024, () -> { }));
            assertTrue(e.getMessage().contains("shared memory is full") && e.getMessage().contains("MiB free")
                    && e.getMessage().contains("/dev/shm"), e.getMessage());
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }
}
