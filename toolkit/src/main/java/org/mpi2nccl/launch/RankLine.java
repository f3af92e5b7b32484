package org.mpi2nccl.launch;

/**
 * One line a rank printed, as the launcher received it. {@code rank} is -1 for lines that come from MPJ
 * Express or the JVM rather than from a rank's program.
 */
public record RankLine(int rank, Stream stream, String text) {
    /** Which of the rank's streams the line was printed to. */
    public enum Stream { STDOUT, STDERR }

    public boolean isStderr() {
        return stream == Stream.STDERR;
    }

    /** {@code [rank 2] text}, or {@code [mpj] text} for lines that belong to no rank. */
    @Override
    public String toString() {
        return (rank >= 0 ? "[rank " + rank + "] " : "[mpj] ") + text;
    }
}
