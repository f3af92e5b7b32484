package org.mpi2nccl.autograd;

/**
 * Whether operations record the graph for backward on this thread. Evaluation and optimizer updates run
 * without it: {@code try (GradMode.Off off = GradMode.off()) { ... }}.
 */
public final class GradMode {
    private GradMode() {}

    private static final ThreadLocal<int[]> DISABLED = ThreadLocal.withInitial(() -> new int[1]);

    public static boolean isEnabled() { return DISABLED.get()[0] == 0; }

    /** Turns recording off until the returned handle is closed (nests). */
    public static Off off() {
        DISABLED.get()[0]++;
        return new Off();
    }

    /** The handle of {@link #off()}. */
    public static final class Off implements AutoCloseable {
        private boolean closed;

        private Off() {}

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            DISABLED.get()[0]--;
        }
    }
}
