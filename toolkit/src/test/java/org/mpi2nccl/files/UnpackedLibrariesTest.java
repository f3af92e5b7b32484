package org.mpi2nccl.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A killed JVM's unpacked BLAS is removed; a young one, one in use and other files stay. */
class UnpackedLibrariesTest {
    @Test
    void onlyOldUnmappedCopiesGo(@TempDir Path folder) throws Exception {
        Path left = old(Files.writeString(folder.resolve("libnetlibblasjni.so123456789"), "x"));
        Path young = Files.writeString(folder.resolve("libnetlibblasjni.so987654321"), "x");
        Path other = old(Files.writeString(folder.resolve("notes.txt"), "x"));
        assertEquals(1, UnpackedLibraries.sweep(folder));
        assertFalse(Files.exists(left), "the old copy nobody maps is removed");
        assertTrue(Files.exists(young), "a copy a JVM may be about to load stays");
        assertTrue(Files.exists(other), "files of other kinds stay");
    }

    @Test
    void aLibraryThisJvmMapsIsInUse() throws Exception {
        // This JVM maps its own libjava.so: the maps are read, and a mapped file is seen as in use.
        String libjava = Path.of(System.getProperty("java.home"), "lib", "libjava.so").toRealPath().toString();
        assertTrue(UnpackedLibraries.mappedFiles().contains(libjava), "libjava.so is mapped by this JVM");
    }

    private static Path old(Path p) throws Exception {
        Files.setLastModifiedTime(p, FileTime.from(Instant.now().minusSeconds(600)));
        return p;
    }
}
