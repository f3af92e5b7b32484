package org.mpi2nccl.grade;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Grades the fixture class of lesson 01 (made by notebooks/test/make_grading_class.py from the lesson's student
 * version): one right answer, and the submissions a grader must survive. Each student runs in a JVM of its own;
 * afterwards none of their processes may be alive.
 */
class GraderTest {
    static Path resource(String name) throws URISyntaxException {
        return Path.of(GraderTest.class.getResource(name).toURI());
    }

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void theFixtureClassGetsTheExpectedGradebookAndLeavesNoProcess(@TempDir Path out) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        // The endless student costs the whole per-cell limit. The honest students' slowest cell is "%mpj start -np 4"
        // (4 rank engine JVMs): about 2 s on an idle 2-core machine, 4.5 s with other tests running beside it; each
        // honest notebook, kernel JVM included, takes 3.5 to 7 s. 12 s leaves that cell more than twice its time.
        // two ranks instead of the lesson's four: every kind of submission still meets rank engines, at half the threads
        Path source = Files.writeString(Files.createDirectories(out.resolve("source")).resolve("lesson01.ipynb"),
                Files.readString(resource("lesson01-short.ipynb")).replace("%mpj start -np 4", "%mpj start -np 2"));
        Grader grader = new Grader(source,
                new Grader.Limits(Duration.ofSeconds(12), Duration.ofSeconds(150)), new PrintStream(log, true));
        assertEquals(List.of("global-mean"), grader.exercises());
        List<StudentResult> results = grader.gradeAll(resource("class01"), out);
        Map<String, StudentResult> by = results.stream().collect(Collectors.toMap(StudentResult::student, Function.identity()));
        assertEquals(8, results.size(), log.toString());

        assertPass(by.get("right"));
        assertFail(by.get("wrong"), "this rank's own mean");
        assertFail(by.get("crashing"), "is null");
        assertFail(by.get("exits"), "exit code 137"); // killed by its own SIGKILL
        assertFail(by.get("endless"), "ran past its 12 s limit");
        assertFail(by.get("tampered"), "no answer yet"); // its own "RIGHT" check cell was not the one that ran
        assertFail(by.get("tampered"), "was edited (checksum "); // and the gradebook says it was changed
        assertFalse(by.get("right").verdicts().get(0).detail().contains("check cell"), by.get("right").toString());
        assertFail(by.get("deleted"), "exercise cell was deleted");
        assertFail(by.get("invalid"), "not valid JSON");

        for (StudentResult r : results) {
            for (long pid : r.pids()) {
                // ended and not yet collected by the machine's init (a sandbox's processes) is not running
                assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && !org.mpi2nccl.files.ProcStat.ended(pid),
                        r.student() + ": process " + pid + " of the run is still alive");
            }
        }
        assertTrue(by.get("right").pids().size() >= 2, "the run's kernel and its rank engine were seen: "
                + by.get("right").pids());
        for (StudentResult r : results) { // output cut from the notebook is kept in the kernel's folder: gone after the run
            Path work = out.resolve("work").resolve(r.student());
            if (Files.isDirectory(work)) {
                try (var files = Files.list(work)) {
                    assertEquals(List.of(), files.map(f -> f.getFileName().toString())
                            .filter(n -> n.startsWith("mpi2nccl-")).collect(Collectors.toList()), r.student());
                }
            }
        }

        List<String> csv = Files.readAllLines(out.resolve("gradebook.csv"));
        assertEquals("student,exercise,result,detail,seconds,run", csv.get(0));
        assertEquals(9, csv.size(), String.join("\n", csv));
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("right,global-mean,pass,")), String.join("\n", csv));
        String html = Files.readString(out.resolve("gradebook.html"));
        assertEquals(8, html.split("<tr><td>", -1).length - 1);
        assertTrue(html.contains("this rank&#39;s own mean") || html.contains("this rank's own mean"), html);
        assertTrue(Files.exists(out.resolve("executed").resolve("right.ipynb")));
    }

    static void assertPass(StudentResult r) {
        assertTrue(r.verdicts().get(0).passed(), r.student() + ": " + r.verdicts());
    }

    static void assertFail(StudentResult r, String why) {
        Verdict v = r.verdicts().get(0);
        assertFalse(v.passed(), r.student() + " passed");
        assertTrue(v.detail().contains(why), r.student() + ": expected '" + why + "' in: " + v.detail());
    }
}
