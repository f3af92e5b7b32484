package org.mpi2nccl.grade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lessons 07, 03 and 08 graded whole, each a class made by notebooks/test/make_grading_class.py: every mark comes from
 * the numbers the student's code gave on the grading's own inputs, computed again by the grader, and from how the
 * exercise asks them to be built. Honest students keep exactly what they earned; a check of one's own, an answer
 * line of one's own making and the library's all-reduce each get 0 with the reason named.
 */
class GraderClassesTest {
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void lesson07sCheatsGetNothingAndItsHonestStudentKeepsTheMark(@TempDir Path out) throws Exception {
        Map<String, StudentResult> by = grade("lesson07-short.ipynb", "class07", out);
        assertEquals(4, by.size(), by.toString());
        assertEquals(List.of("honest"), passing(by), by.toString());
        Verdict honest = by.get("honest").verdicts().get(0);
        assertTrue(honest.detail().startsWith("right on the grading's own inputs, on all 2 rank(s)"), honest.detail());
        assertTrue(detail(by, "library").contains("calls allReduce") && detail(by, "library").contains("its numbers were right"),
                detail(by, "library"));
        assertTrue(detail(by, "shadow").contains("declares its own Lesson07"), detail(by, "shadow"));
        assertTrue(detail(by, "forger").contains("rank 0") && detail(by, "forger").contains("printed RIGHT: not its numbers")
                || detail(by, "forger").contains("two different answers"), detail(by, "forger"));
        String book = Files.readString(out.resolve("gradebook.csv"));
        assertTrue(book.contains("calls allReduce") && book.contains("declares its own Lesson07"), "the gradebook says why: " + book);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void lesson03sStagesAreMarkedByTheirTraining(@TempDir Path out) throws Exception {
        Map<String, StudentResult> by = grade("lesson03-short.ipynb", "class03", out);
        assertEquals(3, by.size(), by.toString());
        assertEquals(4, by.get("honest").passed(), by.get("honest").toString());
        StudentResult tensorwise = by.get("tensorwise");
        assertEquals(List.of(true, true, false, true), tensorwise.verdicts().stream().map(Verdict::passed).toList(), tensorwise.toString());
        assertTrue(tensorwise.verdicts().get(2).detail().contains("not bucketed"), tensorwise.toString());
        for (Verdict v : by.get("honest").verdicts()) {
            assertTrue(v.detail().startsWith("right on the grading's own inputs"), v.toString());
        }
        StudentResult summed = by.get("summed");
        assertEquals(1, summed.passed(), "only the shares, which average with the lesson's own all-reduce: " + summed);
        assertTrue(summed.verdicts().get(1).detail().contains("for the grading's inputs, the right value is"), summed.toString());
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void lesson08sInterfaceIsMarkedOnNodesNobodySaw(@TempDir Path out) throws Exception {
        Map<String, StudentResult> by = grade("lesson08-short.ipynb", "class08", out);
        assertEquals(List.of("honest"), passing(by), by.toString());
        assertTrue(detail(by, "honest").startsWith("right on the grading's own inputs, on all 1 rank(s)"), detail(by, "honest"));
        assertTrue(detail(by, "first").contains("for the grading's inputs, the right value is")
                || detail(by, "first").contains("the check said"), detail(by, "first"));
        assertTrue(detail(by, "forger").contains("two different answers") || detail(by, "forger").contains("the right value is"),
                detail(by, "forger"));
    }

    private static Map<String, StudentResult> grade(String lesson, String folder, Path out) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Path source = Files.copy(GraderTest.resource(lesson), Files.createDirectories(out.resolve("source")).resolve(lesson));
        Grader grader = new Grader(source, new Grader.Limits(Duration.ofSeconds(60), Duration.ofSeconds(240)),
                new PrintStream(log, true));
        Map<String, StudentResult> by = grader.gradeAll(GraderTest.resource(folder), out).stream()
                .collect(Collectors.toMap(StudentResult::student, Function.identity()));
        System.out.println(log);
        return by;
    }

    private static List<String> passing(Map<String, StudentResult> by) {
        return by.values().stream().filter(r -> r.passed() == r.verdicts().size()).map(StudentResult::student).sorted().toList();
    }

    private static String detail(Map<String, StudentResult> by, String student) {
        return by.get(student).verdicts().get(0).detail();
    }
}
