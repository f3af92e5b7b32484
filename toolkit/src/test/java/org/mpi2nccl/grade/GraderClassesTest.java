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
 * line of one's own making and the library's all-reduce each get 0 with the reason named; in lesson 07's class a
 * vandal who tries to read the source and overwrite the others' submissions and the gradebook keeps its own honest
 * marks and changes nothing.
 */
class GraderClassesTest {
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void lesson07sCheatsGetNothingAndItsHonestStudentKeepsTheMark(@TempDir Path out) throws Exception {
        Map<String, StudentResult> by = grade("lesson07-short.ipynb", "class07", out, true);
        assertEquals(4, by.size(), by.toString());
        assertEquals(List.of("honest"), passing(by), by.toString());
        Verdict honest = by.get("honest").verdicts().get(0);
        assertTrue(honest.detail().startsWith("right on the grading's own inputs, on all 2 rank(s)"), honest.detail());
        assertTrue(detail(by, "library").contains("calls allReduce") && detail(by, "library").contains("its numbers were right"),
                detail(by, "library"));
        assertTrue(detail(by, "shadow").contains("declares its own Lesson07"), detail(by, "shadow"));
        assertTrue(detail(by, "forger").contains("rank 0") && detail(by, "forger").contains("printed RIGHT: not its numbers")
                || detail(by, "forger").contains("two different answers"), detail(by, "forger"));
        String book = Files.readString(out.resolve("graded").resolve("gradebook.csv"));
        assertTrue(book.contains("calls allReduce") && book.contains("declares its own Lesson07"), "the gradebook says why: " + book);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void lesson03sStagesAreMarkedByTheirTraining(@TempDir Path out) throws Exception {
        Map<String, StudentResult> by = grade("lesson03-short.ipynb", "class03", out, false);
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
        Map<String, StudentResult> by = grade("lesson08-short.ipynb", "class08", out, false);
        assertEquals(List.of("honest"), passing(by), by.toString());
        assertTrue(detail(by, "honest").startsWith("right on the grading's own inputs, on all 1 rank(s)"), detail(by, "honest"));
        assertTrue(detail(by, "first").contains("for the grading's inputs, the right value is")
                || detail(by, "first").contains("the check said"), detail(by, "first"));
        assertTrue(detail(by, "forger").contains("two different answers") || detail(by, "forger").contains("the right value is"),
                detail(by, "forger"));
    }

    /**
     * Grades the class in {@code folder}; with {@code vandal}, one more student, "a-vandal" (graded first): the honest
     * answer, and in its first exercise cell an attempt to read the lesson source and to overwrite every later
     * submission and the gradebook. It must keep the honest marks (nothing readable, nothing written), and the others
     * theirs. (The sandbox is the same for every lesson: one class with a vandal keeps CI's time.)
     */
    private static Map<String, StudentResult> grade(String lesson, String folder, Path out, boolean vandal) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Path source = Files.copy(GraderTest.resource(lesson), Files.createDirectories(out.resolve("source")).resolve(lesson));
        Path submitted = Files.createDirectories(out.resolve("submitted"));
        Map<String, String> before = new java.util.TreeMap<>();
        try (var files = Files.list(GraderTest.resource(folder))) {
            for (Path f : files.toList()) {
                before.put(f.getFileName().toString(), Files.readString(f));
                Files.copy(f, submitted.resolve(f.getFileName()));
            }
        }
        Path gradebook = out.resolve("graded").resolve("gradebook.csv");
        StringBuilder targets = new StringBuilder();
        for (String name : before.keySet()) targets.append('"').append(submitted.resolve(name)).append("\", ");
        targets.append('"').append(gradebook).append('"');
        String attack = "\nboolean leaked = java.nio.file.Files.isReadable(java.nio.file.Path.of(\"" + source + "\"));\n"
                + "for (String f : new String[] {" + targets + "}) {\n"
                + "    try { java.nio.file.Files.writeString(java.nio.file.Path.of(f), \"{}\"); } catch (Exception e) { }\n}\n"
                + "if (leaked) throw new IllegalStateException(\"the grader's source was readable\");\n";
        if (vandal) Files.writeString(submitted.resolve("a-vandal.ipynb"), withAttack(before.get("honest.ipynb"), attack));
        Grader grader = new Grader(source, new Grader.Limits(Duration.ofSeconds(60), Duration.ofSeconds(240)),
                new PrintStream(log, true));
        Map<String, StudentResult> by = grader.gradeAll(submitted, gradebook.getParent()).stream()
                .collect(Collectors.toMap(StudentResult::student, Function.identity()));
        System.out.println(log);
        for (var e : before.entrySet()) {
            assertEquals(e.getValue(), Files.readString(submitted.resolve(e.getKey())), "the vandal changed " + e.getKey());
        }
        assertEquals(1 + by.size() * grader.exercises().size(), Files.readAllLines(gradebook).size(),
                "one gradebook row a student and exercise, written by the grader");
        if (vandal) {
            StudentResult v = by.remove("a-vandal");
            assertEquals(by.get("honest").passed(), v.passed(), "the vandal's honest answer keeps its marks: " + v);
        }
        return by;
    }

    /** The notebook {@code json} with {@code code} added to the end of its first exercise cell. */
    private static String withAttack(String json, String code) {
        com.google.gson.JsonObject nb = com.google.gson.JsonParser.parseString(json).getAsJsonObject();
        for (var c : nb.getAsJsonArray("cells")) {
            com.google.gson.JsonObject cell = c.getAsJsonObject();
            var meta = cell.getAsJsonObject("metadata");
            var tags = meta == null ? null : meta.getAsJsonArray("tags");
            if (tags == null || !tags.toString().contains("\"exercise\"")) continue;
            var src = cell.get("source");
            StringBuilder text = new StringBuilder();
            if (src.isJsonArray()) {
                for (var line : src.getAsJsonArray()) text.append(line.getAsString());
            } else {
                text.append(src.getAsString());
            }
            cell.addProperty("source", text + code);
            break;
        }
        return nb.toString();
    }

    private static List<String> passing(Map<String, StudentResult> by) {
        return by.values().stream().filter(r -> r.passed() == r.verdicts().size()).map(StudentResult::student).sorted().toList();
    }

    private static String detail(Map<String, StudentResult> by, String student) {
        return by.get(student).verdicts().get(0).detail();
    }
}
