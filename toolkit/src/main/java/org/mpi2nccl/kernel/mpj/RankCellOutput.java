package org.mpi2nccl.kernel.mpj;

import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.BiConsumer;

/**
 * One rank's output of one {@code %%mpj} cell, capped where it is made: the first {@code shownBytes} go to the
 * kernel, the rest to a file in the kernel's output folder. The kernel caps a cell's output too, but only after
 * it has received it: two ranks printing a million lines each sent it two million messages and a gigabyte of
 * memory before its cap could help. Here a rank sends at most its share, so the kernel's memory stays bounded
 * and it answers an interrupt at once. The file stops at {@link #FILE_BYTES}: a rank printing without end must
 * not fill the disk.
 *
 * <p>Once output starts going to the file, all of it does (stdout and stderr alike), so the notebook shows a
 * beginning and the file holds the rest in order. {@link #finish} gives the note for the notebook.
 */
final class RankCellOutput implements BiConsumer<String, String> {
    /** Per rank and cell; the kernel's own file for the cell stops at the same size. */
    static final long FILE_BYTES = 64L << 20;

    private final int rank;
    private final long shownBytes;
    private final long fileBytes;
    private final Path folder;
    private final BiConsumer<String, String> send;
    private long shown;
    private long spilled;
    private long dropped;
    private boolean cut;
    private Path file;
    private Writer fileOut;
    private String fileProblem;

    /**
     * @param fileBytes where the file stops ({@link #FILE_BYTES})
     * @param folder    the kernel's output folder (null: none, the rest is not kept)
     * @param send      where shown text goes: {@code send(stream, text)}
     */
    RankCellOutput(int rank, long shownBytes, long fileBytes, Path folder, BiConsumer<String, String> send) {
        this.rank = rank;
        this.shownBytes = shownBytes;
        this.fileBytes = fileBytes;
        this.folder = folder;
        this.send = send;
    }

    @Override
    public synchronized void accept(String stream, String text) {
        if (!cut) {
            int fits = fits(text, shownBytes - shown);
            if (fits == text.length()) {
                shown += utf8Length(text, 0, text.length());
                send.accept(stream, text);
                return;
            }
            // the first cut: show whole lines up to the budget, keep the rest (a first line longer than the
            // whole budget is shown up to it: one huge line must not show nothing)
            int lineEnd = fits == 0 ? 0 : text.lastIndexOf('\n', fits - 1) + 1;
            int show = lineEnd > 0 ? lineEnd : shown == 0 ? fits : 0;
            if (show > 0) {
                shown += utf8Length(text, 0, show);
                send.accept(stream, text.substring(0, show));
            }
            cut = true;
            keep(text.substring(show));
            return;
        }
        keep(text);
    }

    /** Closes the file; the note for the notebook when output was cut, else null. */
    synchronized String finish() {
        if (fileOut != null) {
            try {
                fileOut.close();
            } catch (IOException | RuntimeException e) {
                // the note still says how much there was
            }
        }
        if (!cut) return null;
        String printed = String.format(Locale.ROOT, "rank %d printed %s in this cell; the notebook shows the first %s, ", rank,
                size(shown + spilled + dropped), size(shown));
        if (spilled == 0) return printed + "the rest was not kept (" + fileProblem + ")";
        return printed + "the rest is in " + file + (dropped == 0 ? ""
                : " up to " + size(fileBytes) + ", the last " + size(dropped) + " were not kept");
    }

    private void keep(String text) {
        long n = utf8Length(text, 0, text.length());
        if (fileOut == null && fileProblem == null) open();
        // once something is dropped, all after it is too: the file holds one unbroken stretch
        if (fileOut != null && dropped == 0 && spilled + n <= fileBytes) {
            try {
                fileOut.write(text);
                spilled += n;
                return;
            } catch (IOException | RuntimeException e) {
                // a full disk, say: drop it, the cell goes on (an interrupt's Thread.stop can land inside the
                // writer and leave it broken: the same)
            }
        }
        dropped += n;
    }

    private void open() {
        if (folder == null || !Files.isDirectory(folder)) {
            fileProblem = "the kernel's output folder " + (folder == null ? "was not given" : folder + " is not on this host");
            return;
        }
        try {
            file = Files.createTempFile(folder, "rank-" + rank + "-", ".txt");
            // a FileOutputStream, not a FileChannel: interrupting the cell (how it is stopped) would close a channel
            fileOut = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(file.toFile()), StandardCharsets.UTF_8),
                    1 << 16);
        } catch (IOException e) {
            fileProblem = "no file for it: " + e;
        }
    }

    /** How many chars of {@code text}, from the start, fit in {@code budget} UTF-8 bytes (never half a pair). */
    static int fits(String text, long budget) {
        long used = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int n = c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isHighSurrogate(c) ? 4 : 3;
            if (used + n > budget) return i;
            used += n;
            if (n == 4) i++; // the pair's low half is counted in the 4 bytes
        }
        return text.length();
    }

    /** The UTF-8 size of {@code text[from, to)} (a surrogate pair is 4 bytes), without encoding it. */
    static long utf8Length(String text, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return n;
    }

    /** "312 bytes", "256 KB", "48.2 MB", "64 MB". */
    static String size(long bytes) {
        if (bytes < 1024) return bytes + (bytes == 1 ? " byte" : " bytes");
        if (bytes < 1 << 20) return String.format(Locale.ROOT, "%.0f KB", bytes / 1024.0);
        return String.format(Locale.ROOT, "%.1f MB", bytes / (double) (1 << 20)).replace(".0 MB", " MB");
    }
}
