package org.mpi2nccl.grade;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Lesson 01 submissions that try to write their own verdict, for {@link GraderSandboxTest}'s class: each gets 0
 * because the grader judges lesson 01 by the values the code gives on the grading's fresh inputs (DataCheck).
 */
final class GraderByData {
    /** A check class of the student's own, shadowing the lesson's: it "says" RIGHT without any answer. */
    static final String SHADOW = "%%mpj\ndouble globalMean(MpiComm comm, double[] local) { return Double.NaN; }\n"
            + "class Lesson01 {\n"
            + "    static String checkGlobalMean(org.mpi2nccl.lessons.Lesson01.Mean f) {\n"
            + "        return \"RIGHT: rank \" + rank + \": global mean, trust me\";\n    }\n}\n";
    /** The global mean of the lesson's own inputs, as the student saw it in class, printed as an answer line. */
    static final String FORGER = "%%mpj\ndouble globalMean(MpiComm comm, double[] local) {\n"
            + "    return org.mpi2nccl.lessons.Lesson01.globalMean(comm.Size(), 0);\n}\n"
            + "System.out.println(\"ANSWER global-mean: \" + org.mpi2nccl.lessons.Lesson01.globalMean(size, 0));\n";

    /**
     * The lesson's own reference for the grading's inputs (it reads the grading's number from the run's environment),
     * passed through a collective: right numbers on the notebook's ranks, but the reference knows only the lesson's
     * data, so the check's thread ranks, with data of their own, find it out.
     */
    static final String SEEDED = "%%mpj\ndouble globalMean(MpiComm comm, double[] local) {\n"
            + "    double[] mean = {org.mpi2nccl.lessons.Lesson01.globalMean(comm.Size())}, got = new double[1];\n"
            + "    comm.Allreduce(mean, 0, got, 0, 1, MPI.DOUBLE, MPI.MAX);\n    return got[0];\n}\n";

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

    private GraderByData() {
    }

    static void assertCheatsFailed(Map<String, StudentResult> by, Path out) throws IOException {
        for (String cheat : List.of("d-shadow", "d-forger", "d-hooked", "d-seeded")) {
            assertFalse(by.get(cheat).verdicts().get(0).passed(), cheat + " got the mark: " + by.get(cheat));
        }
        String shadow = by.get("d-shadow").verdicts().get(0).detail();
        assertTrue(shadow.contains("declares its own Lesson01") && shadow.contains("no answer from rank 0"), shadow);
        assertTrue(by.get("d-forger").verdicts().get(0).detail().contains("for the grading's inputs, the right value is"),
                by.get("d-forger").toString());
        String seeded = by.get("d-seeded").verdicts().get(0).detail();
        assertTrue(seeded.contains("right numbers on the grading's inputs") && seeded.contains("wrong on 1 rank as threads"),
                seeded);
        String hooked = Files.readString(out.resolve("executed").resolve("d-hooked.ipynb"));
        assertTrue(hooked.contains("ANSWER global-mean: 17.5"), "the hook rewrote the executed notebook: the attack ran");
        assertTrue(by.get("d-hooked").verdicts().get(0).detail().contains("answered 17.5"), by.get("d-hooked").toString());
    }
}
