package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recorded GPU results the lessons read: carried by the toolkit, found from any folder, with their provenance. */
class RecordedTest {
    /** Every file lessons 04-06 read, by set. */
    private static final Map<Recorded, List<String>> READ = Map.of(
            Recorded.BANDWIDTH, List.of("nccl/bandwidth.csv", "mpi/bandwidth.csv", "torch_allreduce.csv", "nccl-init.txt"),
            Recorded.DATA_PARALLEL, List.of("nccl-debug.txt", "nccl-bad-ifname.txt"),
            Recorded.GPU_SCALING, List.of("fashion-vs-ddp/epochs.csv", "fashion-vs-ddp/run.txt"),
            Recorded.GPU_TESTS, List.of("junit.txt"));

    /** The repository's root: surefire runs in toolkit/. */
    private static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("results"))) {
            dir = dir.getParent();
        }
        assertNotNull(dir, "no results/ above " + Path.of("").toAbsolutePath());
        return dir;
    }

    @Test
    void theToolkitCarriesEveryFileTheLessonsReadAsResultsHasIt() throws Exception {
        for (var e : READ.entrySet()) {
            for (String rel : e.getValue()) {
                Path carried = e.getKey().onClassPath(rel);
                assertNotNull(carried, e.getKey().folder() + "/" + rel + " is not on the class path: toolkit/pom.xml copies it");
                assertArrayEquals(Files.readAllBytes(root().resolve(e.getKey().folder()).resolve(rel)),
                        Files.readAllBytes(carried), rel + ": the toolkit's copy differs from results/ (rebuild)");
            }
        }
    }

    @Test
    void fromAFolderOutsideTheRepositoryTheToolkitsCopyIsRead(@TempDir Path elsewhere) {
        assertNull(Recorded.BANDWIDTH.inCheckout("nccl/bandwidth.csv", elsewhere), "a checkout above " + elsewhere + "?");
        Path f = Recorded.BANDWIDTH.file("nccl/bandwidth.csv", elsewhere);
        assertNotNull(f);
        assertFalse(f.startsWith(root().resolve("results")), "read from results/ although outside the checkout: " + f);
        // from inside the checkout, results/ comes first
        assertEquals(root().resolve("results/bandwidth-2gpu/nccl/bandwidth.csv"),
                Recorded.BANDWIDTH.file("nccl/bandwidth.csv", root().resolve("notebooks")));
        assertNull(Recorded.BANDWIDTH.file("no-such-file.csv", elsewhere));
    }

    @Test
    void aResourceInAJarBecomesAReadableFile(@TempDir Path tmp) throws Exception {
        Path jar = tmp.resolve("r.jar");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(jar))) {
            z.putNextEntry(new ZipEntry("org/mpi2nccl/lessons/recorded/set/a/b.csv"));
            z.write("x,y\n1,2\n".getBytes(StandardCharsets.UTF_8));
        }
        URL url = new URL("jar:" + jar.toUri() + "!/org/mpi2nccl/lessons/recorded/set/a/b.csv");
        Path f = Recorded.local(url, "set/a/b.csv");
        assertEquals("x,y\n1,2\n", Files.readString(f));
        assertTrue(f.endsWith(Path.of("set/a/b.csv")), "the set's folders are kept (run.txt sits beside epochs.csv): " + f);
    }

    /** Each file's machine, date, NCCL and commit in SET.properties are those its results/SET/README.md (or the file) gives. */
    @Test
    void theProvenanceAgreesWithTheResultsReadme() throws Exception {
        Pattern when = Pattern.compile("(\\d{4}-\\d{2}-\\d{2}).*, commit (\\w+)");
        for (var e : READ.entrySet()) {
            Recorded set = e.getKey();
            String readme = Files.readString(root().resolve(set.folder()).resolve("README.md"));
            assertTrue(readme.contains(set.machine().replace("2x ", "")), set.folder() + ": " + set.machine());
            for (String rel : e.getValue()) {
                Matcher m = when.matcher(set.when(rel));
                assertTrue(m.find(), set.folder() + "/" + rel + " has no date and commit in its properties: " + set.when(rel));
                assertTrue(readme.contains(m.group(1)), rel + ": " + m.group(1) + " is not in " + set.folder() + "/README.md");
                Matcher nccl = Pattern.compile("NCCL (\\d+\\.\\d+\\.\\d+)").matcher(set.when(rel));
                if (nccl.find()) {
                    String file = Files.readString(root().resolve(set.folder()).resolve(rel));
                    assertTrue(readme.contains(nccl.group()) || file.contains(nccl.group(1)),
                            rel + ": " + nccl.group() + " is neither in its README nor in the file");
                }
                if (!m.group(2).equals("not")) {
                    assertTrue(readme.contains(m.group(2)), rel + ": commit " + m.group(2) + " is not in its README");
                }
            }
        }
    }

    @Test
    void aLessonSaysWhereAResultCameFrom() {
        String s = Recorded.BANDWIDTH.source("nccl/bandwidth.csv");
        assertTrue(s.startsWith("RECORDED on 2x NVIDIA H200") && s.contains("not this machine") && s.contains("ab100c1")
                && s.contains("NCCL 2.28.9")
                && s.contains("results/bandwidth-2gpu/nccl/bandwidth.csv"), s);
        String missing = Recorded.DATA_PARALLEL.missing("no-such.csv");
        assertTrue(missing.contains("scripts/gpu/data-parallel.sh") && !missing.contains("not in this checkout"), missing);
    }
}
