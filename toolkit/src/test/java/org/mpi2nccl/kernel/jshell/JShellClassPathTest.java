package org.mpi2nccl.kernel.jshell;

import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JShell's class indexer can overwrite the class path given to an evaluator with the JVM's own when it starts
 * before that class path is set ({@link JShellEvaluator} sets the class path before the source analysis that
 * starts the indexer). The race shows when several evaluators start at once in a cold JVM whose class path lacks
 * the jar, as rank engines under MPJ multicore do: set in the other order, this test fails about 1 JVM in 2.
 */
class JShellClassPathTest {
    @Test
    void concurrentColdStartsKeepTheirClassPath() throws Exception {
        String tablesaw = location(Table.class);
        String probeClasses = location(ConcurrentStartProbe.class);
        String toolkitClasses = location(JShellEvaluator.class);
        // Jars on the JVM's class path, as in an engine JVM (the toolkit's jar and gson): javac reads their
        // manifests when it works out its default class path, which widens the race's window to what it is there.
        String gson = location(com.google.gson.Gson.class);
        String picocli = location(picocli.CommandLine.class);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> lines = new ArrayList<>();
        for (int jvm = 0; jvm < 3; jvm++) {
            // The JVM's class path has the evaluator but not Tablesaw: only the given class path can supply it.
            Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
                    "-cp", String.join(File.pathSeparator, toolkitClasses, probeClasses, gson, picocli),
                    ConcurrentStartProbe.class.getName(), "4", tablesaw, "tech.tablesaw.api")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the probe JVM did not end");
            assertEquals(0, p.exitValue(), out);
            out.lines().filter(l -> l.equals("ok") || l.startsWith("lost")).forEach(lines::add);
        }
        assertEquals(12, lines.size(), "12 evaluators should have reported: " + lines);
        assertEquals(List.of(), lines.stream().filter(l -> !l.equals("ok")).toList());
    }

    private static String location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
