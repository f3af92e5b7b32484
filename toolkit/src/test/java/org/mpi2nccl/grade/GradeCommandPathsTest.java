package org.mpi2nccl.grade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.cli.Main;

/**
 * The grade command as an instructor types it, with paths relative to the current folder (each student's kernel
 * runs in a folder of its own, where such a path once pointed nowhere and every student got 0), and the exit status
 * when the grader itself, not the students, failed.
 */
class GradeCommandPathsTest {
    @Test
    void relativePathsGradeTheRightStudentRight(@TempDir Path tmp) throws Exception {
        Path submissions = Files.createDirectories(tmp.resolve("submitted"));
        Files.copy(GraderTest.resource("class01/right.ipynb"), submissions.resolve("right.ipynb"));
        Path here = Path.of("").toAbsolutePath();
        String source = here.relativize(GraderTest.resource("lesson01-short.ipynb")).toString();
        String subs = here.relativize(submissions).toString();
        String out = here.relativize(tmp.resolve("graded")).toString();
        assertTrue(!Path.of(subs).isAbsolute() && !Path.of(out).isAbsolute(), subs + ", " + out);

        int status = Main.run("grade", "--source", source, "--submissions", subs, "--out", out, "--cell-timeout", "60");

        assertEquals(0, status);
        List<String> csv = Files.readAllLines(tmp.resolve("graded").resolve("gradebook.csv"));
        assertTrue(csv.get(1).startsWith("right,global-mean,pass,"), String.join("\n", csv) + whatTheRunSaid(tmp.resolve("graded")));
        assertTrue(Files.exists(tmp.resolve("graded").resolve("executed").resolve("right.ipynb")));
    }

    /** The engines' start as the executed notebook shows it, and the run's log: why a run failed. */
    private static String whatTheRunSaid(Path graded) throws java.io.IOException {
        Path nb = graded.resolve("executed").resolve("right.ipynb");
        Path log = graded.resolve("logs").resolve("right.log");
        String text = Files.exists(nb) ? Files.readString(nb) : "(no executed notebook)";
        int at = Math.max(0, text.indexOf("%mpj start") - 3000);
        return "\nexecuted notebook from the engines' start:\n" + text.substring(at, Math.min(text.length(), at + 4000))
                + "\nlog:\n" + (Files.exists(log) ? Files.readString(log) : "(none)");
    }

    @Test
    void whenNoStartedKernelWroteItsNotebookTheGraderSaysItFailed() {
        StudentResult unreadable = result("invalid", StudentResult.Run.NOT_STARTED);
        StudentResult broken = result("a", StudentResult.Run.NO_NOTEBOOK);
        assertTrue(Grader.toolFailure(List.of(unreadable, broken, result("b", StudentResult.Run.NO_NOTEBOOK)))
                .startsWith("no student's kernel wrote its executed notebook (2 started)"));
        assertEquals("", Grader.toolFailure(List.of(broken, result("c", StudentResult.Run.EXECUTED))),
                "one notebook ran: the grader works, that student's kernel failed");
        assertEquals("", Grader.toolFailure(List.of(broken, result("d", StudentResult.Run.KILLED))),
                "a student stopped at the limit ran");
        assertEquals("", Grader.toolFailure(List.of(unreadable)), "nothing was started: the students' own doing");
    }

    private static StudentResult result(String student, StudentResult.Run run) {
        return new StudentResult(student, List.of(), Duration.ZERO, "", Set.of(), run);
    }
}
