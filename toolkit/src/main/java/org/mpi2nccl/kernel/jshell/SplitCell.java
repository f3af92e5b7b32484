package org.mpi2nccl.kernel.jshell;

import java.util.List;

/**
 * A cell cut into the snippets JShell evaluates one at a time, each with its offset in the cell (error messages
 * give line numbers of the cell, not of the snippet).
 *
 * <p>The kernel cuts a {@code %%mpj} cell once ({@link JShellEvaluator#split}) and sends the pieces to the rank
 * engines: cutting needs JShell's source analysis, whose first use starts a background index of every class on
 * the class path (for completion), a second or more of CPU per JVM that rank engines never use.
 */
public record SplitCell(String cell, List<Part> parts) {
    public SplitCell {
        parts = List.copyOf(parts);
    }

    /** A cell that is one snippet (an import, a declaration): nothing to split. */
    public static SplitCell single(String snippet) {
        return new SplitCell(snippet, List.of(new Part(0, snippet)));
    }

    /** One snippet: its source (as JShell completed it, e.g. with a ';' added) and where it starts in the cell. */
    public record Part(int offset, String source) {
    }
}
