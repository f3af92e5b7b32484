package org.mpi2nccl.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Native libraries that libraries unpack into the user's temp folder: netlib's BLAS writes one copy per JVM
 * ({@code libnetlibblasjni.so<digits>}) and deletes it only when that JVM exits normally, so every killed rank or
 * kernel left one behind. Those no process maps any more, and older than two seconds (a JVM that has just unpacked
 * one loads it within milliseconds), are removed when a kernel or a command starts.
 */
public final class UnpackedLibraries {
    private static final Pattern UNPACKED = Pattern.compile("lib[A-Za-z0-9_]+\\.so\\d+");
    private static final Duration YOUNG = Duration.ofSeconds(2);

    private UnpackedLibraries() {
    }

    /** Removes the unpacked libraries in {@code folder} that nothing maps; returns how many. */
    public static int sweep(Path folder) {
        List<Path> candidates;
        try (Stream<Path> s = Files.list(folder)) {
            candidates = s.filter(p -> UNPACKED.matcher(p.getFileName().toString()).matches()).toList();
        } catch (IOException e) {
            return 0;
        }
        if (candidates.isEmpty()) return 0;
        Set<String> mapped = mappedFiles();
        if (mapped == null) return 0;   // cannot tell what is in use: keep everything
        Instant young = Instant.now().minus(YOUNG);
        int removed = 0;
        for (Path p : candidates) {
            try {
                FileTime t = Files.getLastModifiedTime(p);
                if (t.toInstant().isBefore(young) && !mapped.contains(p.toAbsolutePath().toString())) {
                    Files.deleteIfExists(p);
                    removed++;
                }
            } catch (IOException gone) {
                // removed meanwhile, or not ours
            }
        }
        return removed;
    }

    /** Every file mapped by a process whose maps this user may read (its own); null without /proc. */
    static Set<String> mappedFiles() {
        Set<String> out = new HashSet<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path proc : procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).toList()) {
                try (Stream<String> lines = Files.lines(proc.resolve("maps"))) {
                    lines.forEach(l -> {
                        int slash = l.indexOf('/');
                        if (slash >= 0) out.add(l.substring(slash).replace(" (deleted)", ""));
                    });
                } catch (IOException | java.io.UncheckedIOException notOurs) {
                    // another user's process, or gone
                }
            }
        } catch (IOException e) {
            return null;
        }
        return out;
    }
}
