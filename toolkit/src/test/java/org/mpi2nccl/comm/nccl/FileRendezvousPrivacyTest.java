package org.mpi2nccl.comm.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.comm.CommException;

/**
 * In a shared folder another user can write first: a rank never takes the id from a file planted by someone else,
 * and the files rank 0 makes are owner-only.
 */
class FileRendezvousPrivacyTest {
    private static final String PLANTED = "mpi2nccl-rendezvous-1\nsize=2\nid=" + "ab".repeat(128) + "\n";

    @Test
    void anIdPlantedByAnotherUserIsRefused(@TempDir Path shared) throws Exception {
        Path f = shared.resolve("rv");
        Files.writeString(f, PLANTED);
        Files.setAttribute(f, "unix:uid", 12345);
        CommException e = assertThrows(CommException.class, () -> new FileRendezvous(f).share(1, 2, null, Duration.ofSeconds(2)));
        assertTrue(e.getMessage().contains("owned by uid 12345"), e.getMessage());
        assertTrue(e.getMessage().contains("a folder of your own"), e.getMessage());
    }

    @Test
    void anIdOthersCanWriteIsRefused(@TempDir Path shared) throws Exception {
        Path f = shared.resolve("rv");
        Files.writeString(f, PLANTED);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        CommException e = assertThrows(CommException.class, () -> new FileRendezvous(f).share(1, 2, null, Duration.ofSeconds(2)));
        assertTrue(e.getMessage().contains("writable by others"), e.getMessage());
    }

    @Test
    void aLinkToAnotherFileIsRefused(@TempDir Path shared) throws Exception {
        Path real = Files.writeString(shared.resolve("real"), PLANTED);
        Path f = Files.createSymbolicLink(shared.resolve("rv"), real);
        CommException e = assertThrows(CommException.class, () -> new FileRendezvous(f).share(1, 2, null, Duration.ofSeconds(2)));
        assertTrue(e.getMessage().contains("a symbolic link"), e.getMessage());
    }

    @Test
    void rankZerosFolderAndFilesAreOwnerOnly(@TempDir Path shared) throws Exception {
        Path f = shared.resolve("new/rv");
        Thread reader = new Thread(() -> new FileRendezvous(f).share(1, 2, null, Duration.ofSeconds(10)));
        reader.start();
        byte[] id = new byte[128];
        id[0] = 7;
        assertEquals(7, new FileRendezvous(f).share(0, 2, id, Duration.ofSeconds(10))[0]);
        reader.join(10_000);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.getParent())));
    }
}
