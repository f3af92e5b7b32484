package org.mpi2nccl.grade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Verdicts the student's code cannot write: lesson 01's exercise is graded by the values it gives on inputs drawn
 * fresh for the grading (DataCheck), so a check class shadowed by the student, "RIGHT" lines printed by hand, and a
 * shutdown hook that rewrites the executed notebook after the run all earn 0, while the right answer passes.
 */
class GraderByDataTest {
    /** A shutdown hook in the kernel's JVM that rewrites every notebook in its folder: the check cell says RIGHT. */
    static final String HOOK = String.join("\n",
            "Runtime.getRuntime().addShutdownHook(new Thread(() -> {",
            "  try (var files = java.nio.file.Files.list(java.nio.file.Path.of(\".\"))) {",
            "    for (var f : files.filter(p -> p.toString().endsWith(\".ipynb\")).toList()) {",
            "      var nb = com.google.gson.JsonParser.parseString(java.nio.file.Files.readString(f)).getAsJsonObject();",
            "      for (var c : nb.getAsJsonArray(\"cells\")) {",
            "        var cell = c.getAsJsonObject();",
            "        if (!cell.toString().contains(\"checkGlobalMean\")) continue;",
            "        var out = new com.google.gson.JsonObject();",
            "        out.addProperty(\"output_type\", \"stream\");",
            "        out.addProperty(\"name\", \"stdout\");",
            "        StringBuilder t = new StringBuilder();",
            "        for (int r = 0; r < 4; r++) t.append(\"[rank \" + r + \"] ANSWER global-mean: 17.5\\n[rank \" + r + \"] RIGHT: rank \" + r + \": global mean\\n\");",
            "        out.addProperty(\"text\", t.toString());",
            "        var outs = new com.google.gson.JsonArray();",
            "        outs.add(out);",
            "        cell.add(\"outputs\", outs);",
            "        cell.remove(\"execution_count\");",
            "        cell.addProperty(\"execution_count\", 9);",
            "      }",
            "      java.nio.file.Files.writeString(f, nb.toString());",
            "    }",
            "  } catch (Exception e) { }",
            "}));");

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void onlyTheRightValuesForTheGradingsInputsPass(@TempDir Path tmp) throws Exception {
        assumeTrue(Sandbox.bwrap().isPresent(), "no bubblewrap on this machine: " + Sandbox.whyNot());
        String right = Files.readString(GraderTest.resource("class01/right.ipynb"));
        Path submissions = Files.createDirectories(tmp.resolve("submitted"));
        Map<String, String> cells = new LinkedHashMap<>();
        cells.put("honest", "%%mpj\n" + GraderSandboxTest.ANSWER);
        cells.put("shadow", "%%mpj\ndouble globalMean = Double.NaN;\nclass Lesson01 {\n"
                + "    static String checkGlobalMean(int rank, int size, double[] local, double answer) {\n"
                + "        return \"RIGHT: rank \" + rank + \": global mean, trust me\";\n    }\n}\n");
        // the lesson's own global mean of 4 ranks, as the student saw it in class, printed as the check would
        cells.put("forger", "%%mpj\ndouble globalMean = org.mpi2nccl.lessons.Lesson01.globalMean(size, 0);\n"
                + "System.out.println(\"ANSWER global-mean: \" + globalMean);\n");
        cells.put("hooked", HOOK);
        for (var e : cells.entrySet()) {
            Files.writeString(submissions.resolve(e.getKey() + ".ipynb"), GraderSandboxTest.withExercise(right, e.getValue()));
        }
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Grader grader = new Grader(GraderTest.resource("lesson01-short.ipynb"),
                new Grader.Limits(Duration.ofSeconds(30), Duration.ofSeconds(150)), new PrintStream(log, true));
        List<StudentResult> results = grader.gradeAll(submissions, tmp.resolve("graded"));
        Map<String, StudentResult> by = results.stream().collect(Collectors.toMap(StudentResult::student, Function.identity()));

        Verdict honest = by.get("honest").verdicts().get(0);
        assertTrue(honest.passed(), log + "\n" + honest);
        assertEquals("right on the grading's own inputs, on all 4 rank(s)", honest.detail());
        for (String cheat : List.of("shadow", "forger", "hooked")) {
            Verdict v = by.get(cheat).verdicts().get(0);
            assertFalse(v.passed(), cheat + " got the mark: " + v);
        }
        assertTrue(by.get("shadow").verdicts().get(0).detail().startsWith("no answer from rank 0"), by.get("shadow").toString());
        assertTrue(by.get("forger").verdicts().get(0).detail().contains("for the grading's inputs, the right value is"),
                by.get("forger").toString());
        String hooked = Files.readString(tmp.resolve("graded").resolve("executed").resolve("hooked.ipynb"));
        assertTrue(hooked.contains("ANSWER global-mean: 17.5"), "the hook did rewrite the executed notebook: the attack ran");
        assertTrue(by.get("hooked").verdicts().get(0).detail().contains("answered 17.5"), by.get("hooked").toString());
    }
}
