package org.mpi2nccl.launch.rank;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * A job's private MPJ home ({@code /tmp/.../mpj-job-*}): its name, and its removal, which the launcher does at the end
 * of a job and a rank does itself when its launcher is gone ({@link Lifeline}).
 */
public final class JobHome {
    /** The name every job home starts with. */
    public static final String PREFIX = "mpj-job-";

    private JobHome() {
    }

    /** Deletes {@code job} and everything in it; quietly, as several processes of a job may be doing it at once. */
    public static void delete(Path job) {
        if (job == null) return;
        try (var walk = Files.walk(job)) {
            // lib is a symbolic link: Files.walk does not follow it, so only the link itself is deleted.
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // another process was quicker, or a file is busy: a temp directory left behind is harmless
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // gone already, or deleted by another process while walked
        }
    }
}
