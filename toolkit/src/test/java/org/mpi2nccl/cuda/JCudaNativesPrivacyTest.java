package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JCuda's driver binding is extracted into the user's private folder, owner-only, and never loaded from a folder
 * another user made first.
 */
class JCudaNativesPrivacyTest {
    @TempDir
    Path shared;
    private String tmpdir;

    @BeforeEach
    void pointTmpdirAtAFreshSharedFolder() {
        tmpdir = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", shared.toString());
    }

    @AfterEach
    void putTmpdirBack() {
        System.setProperty("java.io.tmpdir", tmpdir);
    }

    @Test
    void extractedOncePerUserIntoTheirPrivateFolder() throws Exception {
        Path file = JCudaNatives.prepareDriver();
        Path mine = shared.resolve("mpi2nccl-" + System.getProperty("user.name"));
        assertEquals(mine.resolve(JCudaNatives.driverFileName()), file);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(mine)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        long written = Files.getLastModifiedTime(file).toMillis();
        Thread.sleep(20);
        assertEquals(file, JCudaNatives.prepareDriver());
        assertEquals(written, Files.getLastModifiedTime(file).toMillis(), "the second JVM of the user reuses the file");
        assertTrue(Files.notExists(shared.resolve(JCudaNatives.driverFileName())), "nothing in the shared folder");
    }

    @Test
    void aFolderAnotherUserMadeFirstIsRefused() throws Exception {
        Path theirs = Files.createDirectory(shared.resolve("mpi2nccl-" + System.getProperty("user.name")));
        Files.setAttribute(theirs, "unix:uid", 12345);
        CudaUnavailableException e = assertThrows(CudaUnavailableException.class, JCudaNatives::prepareDriver);
        assertTrue(e.getMessage().contains("owned by uid 12345"), e.getMessage());
        assertTrue(e.getMessage().contains("-Djava.io.tmpdir"), e.getMessage());
        assertTrue(Files.notExists(theirs.resolve(JCudaNatives.driverFileName())));
    }
}
