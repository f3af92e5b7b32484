package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** A JNI library in a multicore job: the launcher says to use niodev, and niodev runs the same program. */
class LauncherJniTest {
    /** Any shared library the ranks have not loaded yet stands in for JCuda's. */
    private static String library() {
        for (String p : List.of("/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1",
                "/lib64/libz.so.1", "/usr/lib/libz.so.1")) {
            if (Files.exists(Path.of(p))) return Path.of(p).toAbsolutePath().toString();
        }
        System.out.println("no libz.so.1 found: skipped (the JNI test needs a shared library to load)");
        Assumptions.abort("no libz.so.1 found");
        return null;
    }

    @AfterEach
    void nothingLeft() {
        Leftovers.assertNoDescendants();
    }

    @Test
    void multicoreSaysUseNiodevForGpuJobs() {
        RankFailedException e = assertThrows(RankFailedException.class, () -> Mpj.launch(JniLibraryRank.class)
                .ranks(2).device(MpjDevice.MULTICORE).args(library()).timeout(Duration.ofSeconds(60)).run());
        assertEquals(List.of(1), e.ranks(), e.getMessage());
        assertTrue(e.getMessage().contains("already loaded in another classloader"), e.getMessage());
        assertTrue(e.getMessage().contains("use niodev for GPU jobs"), e.getMessage());
        assertTrue(e.failures().get(0).isJniLoadedByAnotherRank());
    }

    @Test
    void niodevLoadsTheLibraryInEveryRank() {
        String lib = library();
        JobResult r = Mpj.launch(JniLibraryRank.class).ranks(2).device(MpjDevice.NIODEV).args(lib)
                .timeout(Duration.ofSeconds(60)).run();
        assertEquals(List.of("rank 0 loaded " + lib), r.stdout(0));
        assertEquals(List.of("rank 1 loaded " + lib), r.stdout(1));
    }
}
