package org.mpi2nccl.kernel.output;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class CellOutputFolderTest {
    @Test
    void foldersOfKernelsThatNoLongerRunAreDeletedOthersAreKept(@TempDir Path tmp) throws Exception {
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        Path dead = Files.createDirectories(tmp.resolve(CellOutputFolder.PREFIX + ended.pid()));
        Files.writeString(dead.resolve("cell-1.txt"), "printed past the cap");
        Path mine = Files.createDirectories(tmp.resolve(CellOutputFolder.PREFIX + ProcessHandle.current().pid()));
        Path other = Files.createDirectories(tmp.resolve(CellOutputFolder.PREFIX + "notapid"));
        Path unrelated = Files.createDirectories(tmp.resolve("mpi2nccl-something-else"));

        CellOutputFolder.deleteDeadKernels(tmp);

        assertFalse(Files.exists(dead), "the folder of an ended process goes, with its files");
        assertTrue(Files.isDirectory(mine), "a running kernel's folder stays");
        assertTrue(Files.isDirectory(other) && Files.isDirectory(unrelated), "folders not named PREFIX + pid are not ours");
    }

    @Test
    void aCellsOutputPastTheCapGoesToAFileInTheKernelsFolderAndStopsAtTheFileLimit() throws Exception {
        var shown = new java.io.ByteArrayOutputStream();
        var notes = new java.io.ByteArrayOutputStream();
        var out = new java.io.PrintStream(shown, true, "UTF-8");
        var err = new java.io.PrintStream(notes, true, "UTF-8");
        try (CellOutput cell = new CellOutput(out, err, 10)) {
            cell.out().print("0123456789abc");
            cell.out().flush();
            CellOutput.note("[mpj] a note", System.err);
        }
        assertEquals("0123456789", shown.toString("UTF-8"));
        String text = notes.toString("UTF-8");
        assertTrue(text.startsWith("[mpj] a note\n"), "a note is shown past the cap: " + text);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("3 more bytes are in (\\S+)\\]").matcher(text);
        assertTrue(m.find(), text);
        Path file = Path.of(m.group(1));
        assertEquals(CellOutputFolder.get(), file.getParent());
        assertEquals("abc", Files.readString(file));
        Files.delete(file);
    }
}
