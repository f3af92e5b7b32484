package org.mpi2nccl.layers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** No Java file of the toolkit or its core, code or test, runs over 400 lines: one idea a file, readable top to bottom. */
class FileLengthTest {
    static final int MAX_LINES = 400;

    @Test
    void everyJavaFileFitsInFourHundredLines() throws IOException {
        List<Path> roots = List.of(Path.of("src/main/java"), Path.of("src/test/java"), Path.of("core/src/main/java"));
        assertTrue(roots.stream().allMatch(Files::isDirectory), "run from toolkit/: " + Path.of("").toAbsolutePath());
        List<String> tooLong;
        try (Stream<Path> files = roots.stream().flatMap(FileLengthTest::javaFiles)) {
            tooLong = files.filter(p -> lines(p) > MAX_LINES).map(p -> p + " (" + lines(p) + " lines)").sorted().toList();
        }
        assertEquals(List.of(), tooLong, "split these files (a class each idea) to at most " + MAX_LINES + " lines");
    }

    private static Stream<Path> javaFiles(Path root) {
        try {
            return Files.walk(root).filter(p -> p.toString().endsWith(".java")).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long lines(Path p) {
        try (Stream<String> s = Files.lines(p)) {
            return s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
