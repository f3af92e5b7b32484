package org.mpi2nccl.kernel.magic;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * IPython's and IJava's {@code %%writefile [-a] FILE}: the rest of the cell written to FILE ({@code -a}: appended),
 * saying "Writing", "Overwriting" or "Appending to" as IPython does. Written here rather than taken from basekernel,
 * whose version writes in the platform charset (ASCII under a POSIX locale on Java 17) while {@code %load} reads
 * UTF-8, and says nothing.
 */
public final class WriteFileMagic {
    private WriteFileMagic() {
    }

    public static void writefile(List<String> args, String body, PrintStream out) throws IOException {
        boolean append = !args.isEmpty() && args.get(0).equals("-a");
        List<String> files = append ? args.subList(1, args.size()) : args;
        if (files.size() != 1) {
            throw new IllegalArgumentException("%%writefile takes one file name: %%writefile [-a] FILE, then the text"
                    + " on the next lines");
        }
        Path file = Path.of(files.get(0));
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException("%%writefile: " + file.toAbsolutePath() + " is a folder: give a file name");
        }
        boolean existed = Files.exists(file);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        String text = body.isEmpty() || body.endsWith("\n") ? body : body + "\n";
        if (append) {
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } else {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        }
        out.println((append ? "Appending to " : existed ? "Overwriting " : "Writing ") + file);
    }
}
