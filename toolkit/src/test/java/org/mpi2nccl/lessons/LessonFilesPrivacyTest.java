package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.files.PrivateTemp;

/**
 * The files lessons leave in the temporary folder (Chrome traces of lessons 03 and 05, recorded results copied out
 * of the toolkit's jar) are the student's alone: in a folder of this process inside the private folder, 0600, and
 * never at a fixed name another student's lesson would collide with.
 */
class LessonFilesPrivacyTest {
    private static final Path NOTEBOOKS = org.mpi2nccl.Checkout.notebooks();

    @Test
    void aTraceGoesToAFolderOfThisProcessInThePrivateFolder() throws Exception {
        Path trace = Lesson03Timeline.traceFile("lesson03-overlap");
        assertEquals("lesson03-overlap-trace.json", trace.getFileName().toString());
        assertEquals(PrivateTemp.folder(), trace.getParent().getParent());
        assertTrue(trace.getParent().getFileName().toString().startsWith("traces-" + ProcessHandle.current().pid() + "-"),
                trace.toString());
        assertEquals("rw-------", mode(trace));
        assertEquals("rwx------", mode(trace.getParent()));
        assertEquals(trace, Lesson03Timeline.traceFile("lesson03-overlap"));   // a second run of the cell rewrites it
        assertThrows(IllegalArgumentException.class, () -> Lesson03Timeline.traceFile("../x"));
    }

    @Test
    void lessons03And05NoLongerWriteToAFixedSharedName() throws Exception {
        for (String[] lesson : new String[][] {{"03-data-parallel-mpi.ipynb", "lesson03-overlap"},
                {"05-speedup.ipynb", "lesson05-overlap"}}) {
            String text = Files.readString(NOTEBOOKS.resolve(lesson[0]));
            assertFalse(text.contains("java.io.tmpdir"), lesson[0] + " still builds a path in the shared temporary folder");
            assertFalse(text.contains("overlap-trace.json"), lesson[0] + " still names its trace file itself");
            assertTrue(text.contains("Lesson03Timeline.traceFile(\\\"" + lesson[1] + "\\\")"), lesson[0]);
        }
    }

    @Test
    void recordedResultsAreCopiedIntoAFolderOfThisProcess(@TempDir Path tmp) throws Exception {
        Path jar = tmp.resolve("r.jar");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(jar))) {
            z.putNextEntry(new ZipEntry("org/mpi2nccl/lessons/recorded/privacy/a/b.csv"));
            z.write("x,y\n".getBytes(StandardCharsets.UTF_8));
        }
        Path f = Recorded.local(new URL("jar:" + jar.toUri() + "!/org/mpi2nccl/lessons/recorded/privacy/a/b.csv"), "privacy/a/b.csv");
        Path folder = f.getParent().getParent().getParent();
        assertEquals(PrivateTemp.folder(), folder.getParent());
        assertTrue(folder.getFileName().toString().startsWith("recorded-" + ProcessHandle.current().pid() + "-"), f.toString());
        assertEquals("rw-------", mode(f));
        assertEquals("rwx------", mode(f.getParent()));
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
