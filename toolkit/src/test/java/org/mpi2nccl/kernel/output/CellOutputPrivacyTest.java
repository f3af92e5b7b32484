package org.mpi2nccl.kernel.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.files.PrivateTemp;

/** A kernel's cut cell output is the student's alone, and a dead kernel's is found in the private folder too. */
class CellOutputPrivacyTest {
    @Test
    void theKernelsFolderIsInThePrivateFolderAndItsFilesOwnerOnly() throws Exception {
        Path folder = CellOutputFolder.get();
        assertEquals(PrivateTemp.folder(), folder.getParent());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
        Path file = CellOutputFolder.newFile("cell-");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        Files.delete(file);
    }

    @Test
    void theGraderFindsADeadKernelsFolderInsideTheStudentsPrivateFolder(@TempDir Path work) throws Exception {
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        Path dead = Files.createDirectories(PrivateTemp.in(work).resolve(CellOutputFolder.PREFIX + ended.pid()));
        CellOutputFolder.deleteDeadKernels(work);
        assertFalse(Files.exists(dead));
    }
}
