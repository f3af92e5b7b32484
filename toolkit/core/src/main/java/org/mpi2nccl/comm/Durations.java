package org.mpi2nccl.comm;

import java.time.Duration;

/** Short human-readable durations for messages ("30 s", "250 ms"). */
public final class Durations {
    private Durations() {
    }

    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms >= 10_000 && ms % 1000 == 0) {
            return (ms / 1000) + " s";
        }
        if (ms >= 1000) {
            return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        return ms + " ms";
    }
}
