package org.mpi2nccl.bench;

/**
 * Where long work shows its progress: a bar per epoch. {@link TerminalProgress} draws on the terminal; a
 * notebook passes one that draws in the cell (the kernel's {@code org.mpi2nccl.kernel.output.Progress}):
 * <pre>{@code
 * ProgressReporter inCell = (label, total) -> {
 *     Progress p = Progress.start(label, total);
 *     return new ProgressReporter.Bar() {
 *         public void update(long done, String note) { p.set(done); }
 *         public void close() { p.close(); }
 *     };
 * };
 * }</pre>
 */
@FunctionalInterface
public interface ProgressReporter {

    /** A new bar at 0 of {@code total} steps. */
    Bar start(String label, long total);

    /** One bar. */
    interface Bar extends AutoCloseable {
        /** {@code done} of the total are done; {@code note} (may be empty) is shown beside the bar. */
        void update(long done, String note);

        /** Shows the final state. */
        @Override
        void close();
    }

    /** Shows nothing. */
    static ProgressReporter silent() {
        return (label, total) -> new Bar() {
            @Override
            public void update(long done, String note) {
            }

            @Override
            public void close() {
            }
        };
    }
}
