package org.mpi2nccl.kernel.jshell;

import java.util.List;

/**
 * A cell cut into the snippets JShell evaluates one at a time, each with its offset in the cell, and the notebook
 * line the cell's code starts on ({@code firstLine}: 1 for an ordinary cell, 2 for the body of a {@code %%mpj}
 * cell, whose first line is the magic). Error messages and stack traces give the notebook cell's line numbers.
 *
 * <p>The kernel cuts a {@code %%mpj} cell once ({@link JShellEvaluator#split}) and sends the pieces to the rank
 * engines: cutting needs JShell's source analysis, whose first use starts a background index of every class on
 * the class path (for completion): CPU spent in every JVM on an index that rank engines never use.
 */
public record SplitCell(String cell, int firstLine, List<Part> parts) {
    public SplitCell {
        parts = List.copyOf(parts);
    }

    /** A cell that is one snippet (an import, a declaration): nothing to split. */
    public static SplitCell single(String snippet) {
        return new SplitCell(snippet, 1, List.of(new Part(0, snippet)));
    }

    /** The notebook line of the character at {@code offset} of the cell. */
    public int lineAt(int offset) {
        int newlines = 0;
        for (int i = 0; i < offset && i < cell.length(); i++) {
            if (cell.charAt(i) == '\n') {
                newlines++;
            }
        }
        return firstLine + newlines;
    }

    /** One snippet: its source (as JShell completed it, e.g. with a ';' added) and where it starts in the cell. */
    public record Part(int offset, String source) {
    }
}
