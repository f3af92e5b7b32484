package org.mpi2nccl.kernel.mpj;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

class RankCellOutputTest {
    private final StringBuilder sent = new StringBuilder();

    private RankCellOutput output(long shown, long fileBytes, Path folder) {
        return new RankCellOutput(1, shown, fileBytes, folder, (stream, text) -> sent.append(text));
    }

    private static Path fileNamedIn(String note) {
        Matcher m = Pattern.compile("the rest is in (\\S+)").matcher(note);
        assertTrue(m.find(), note);
        return Path.of(m.group(1));
    }

    @Test
    void outputWithinTheShareIsSentWholeAndNeedsNoNote(@TempDir Path folder) throws Exception {
        RankCellOutput out = output(100, 1000, folder);
        out.accept("stdout", "line 1\n");
        out.accept("stderr", "oops\n");
        assertEquals("line 1\noops\n", sent.toString());
        assertNull(out.finish());
        try (var files = Files.list(folder)) {
            assertEquals(0, files.count(), "no file when nothing was cut");
        }
    }

    @Test
    void pastTheShareWholeLinesAreShownAndTheRestGoesToTheFileInOrder(@TempDir Path folder) throws Exception {
        RankCellOutput out = output(20, 1000, folder);
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            String line = "line " + i + "\n";
            all.append(line);
            out.accept(i % 3 == 0 ? "stderr" : "stdout", line);
        }
        assertEquals("line 0\nline 1\n", sent.toString(), "the line that crosses the share goes to the file whole");
        String note = out.finish();
        assertTrue(note.startsWith("rank 1 printed 70 bytes in this cell; the notebook shows the first 14 bytes, the rest is in "), note);
        Path file = fileNamedIn(note);
        assertEquals(folder, file.getParent());
        assertEquals(all.substring(14), Files.readString(file));
        assertFalse(note.contains("not kept"), note);
    }

    @Test
    void aLongTextWithoutNewlineIsCutAtTheShareNeverInsideACharacter(@TempDir Path folder) throws Exception {
        String text = "ééééé€€😀x"; // 2-, 3- and 4-byte characters
        RankCellOutput out = output(12, 1000, folder);
        out.accept("stdout", text);
        String shown = sent.toString();
        assertEquals("ééééé", shown, "10 bytes fit, the euro sign's 3 would not");
        String note = out.finish();
        assertEquals(text.substring(shown.length()), Files.readString(fileNamedIn(note), StandardCharsets.UTF_8));
        assertEquals(text.getBytes(StandardCharsets.UTF_8).length, RankCellOutput.utf8Length(text, 0, text.length()));
        assertEquals(text.indexOf('😀'), RankCellOutput.fits(text, 19), "a surrogate pair is never split");
    }

    @Test
    void theFileStopsAtItsLimitAndTheNoteSaysHowMuchWasDropped(@TempDir Path folder) throws Exception {
        RankCellOutput out = output(0, 25, folder);
        for (int i = 0; i < 10; i++) out.accept("stdout", "0123456789");
        out.accept("stdout", "x"); // would fit, but comes after a gap: dropped too
        String note = out.finish();
        assertEquals("", sent.toString());
        assertEquals("01234567890123456789", Files.readString(fileNamedIn(note)));
        assertTrue(note.endsWith(" up to 25 bytes, the last 81 bytes were not kept"), note);
        assertTrue(note.startsWith("rank 1 printed 101 bytes in this cell; the notebook shows the first 0 bytes"), note);
    }

    @Test
    void withoutAFolderTheRestIsDroppedAndTheNoteSaysWhy(@TempDir Path tmp) {
        RankCellOutput out = output(4, 1000, tmp.resolve("gone"));
        out.accept("stdout", "abc\ndef\n");
        assertEquals("abc\n", sent.toString());
        String note = out.finish();
        assertTrue(note.endsWith("the rest was not kept (the kernel's output folder " + tmp.resolve("gone")
                + " is not on this host)"), note);
    }

    @Test
    void sizesReadAsStudentsWriteThem() {
        assertEquals("312 bytes", RankCellOutput.size(312));
        assertEquals("256 KB", RankCellOutput.size(256 << 10));
        assertEquals("48.2 MB", RankCellOutput.size((long) (48.2 * (1 << 20))));
        assertEquals("64 MB", RankCellOutput.size(64L << 20));
    }

    @Test
    void eachRankSharesHalfTheCellsShownOutputAndNeverLessThan16Kb() {
        assertEquals(256 << 10, RankEngines.shownBytesPerRank(2));
        assertEquals(16 << 10, RankEngines.shownBytesPerRank(64));
    }
}
