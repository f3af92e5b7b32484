package org.mpi2nccl.grade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A class with hostile submissions of lesson 01, graded in sandboxes: each attack is a student whose exercise cell
 * tries it, between two honest students who must keep their marks. Every attack would succeed without the sandbox
 * (the reader would score, the vandal would wipe the others' files, the escaper would outlive its run, the caller
 * would reach a port of this machine, the parricide would kill its ancestors, the grader among them, the spawner
 * would run 200 processes), and the
 * cheats of {@link GraderByData} that print or forge their way to "RIGHT" get 0 from the grading's own data.
 */
class GraderSandboxTest {
    /** The reference answer of the exercise (lesson 01's global mean over all ranks). */
    static final String ANSWER = "double globalMean(MpiComm comm, double[] local) {\n"
            + "    double[] sumAndCount = {Arrays.stream(local).sum(), local.length}, totals = new double[2];\n"
            + "    comm.Allreduce(sumAndCount, 0, totals, 0, 2, MPI.DOUBLE, MPI.SUM);\n"
            + "    return totals[0] / totals[1];\n}\n";
    /** A sleep no other process on the machine has: the escaper's background process, found by its command line. */
    static final String ESCAPER_SLEEP = "sleep 313.25";
    /** The spawner's processes, found the same way. */
    static final String SPAWNED_SLEEP = "sleep 297.5";

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void attacksFailAndHonestStudentsKeepTheirMarks(@TempDir Path tmp) throws Exception {
        assumeTrue(org.mpi2nccl.launch.Bubblewrap.path().isPresent(), "no bubblewrap on this machine: " + Sandbox.whyNot());
        Path source = Files.createDirectories(tmp.resolve("instructor")).resolve("lesson01.ipynb");
        // two ranks instead of the lesson's four: the same attacks, half the engine threads per student
        Files.writeString(source, Files.readString(GraderTest.resource("lesson01-short.ipynb"))
                .replace("%mpj start -np 4", "%mpj start -np 2"));
        Path submissions = Files.createDirectories(tmp.resolve("submitted"));
        Path out = tmp.resolve("graded");
        Path earlyLog = out.resolve("logs").resolve("a-early.log");
        String right = Files.readString(GraderTest.resource("class01/right.ipynb"));
        try (ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            AtomicInteger reached = acceptInBackground(listener);
            Map<String, String> cells = new LinkedHashMap<>();
            cells.put("a-early", "%%mpj\n" + ANSWER);
            cells.put("b-reader", "%%mpj\nboolean leaked = java.nio.file.Files.isReadable(java.nio.file.Path.of(\""
                    + source + "\"));\n" + ANSWER.replace("return totals[0] / totals[1];",
                    "return leaked ? totals[0] / totals[1] : Double.NaN;"));
            // the vandal also escapes (setsid) and calls a port of this machine: three attacks, one student's run
            cells.put("c-vandal", "%%mpj\n" + ANSWER + "for (String f : new String[] {\"" + submissions.resolve("e-late.ipynb")
                    + "\", \"" + earlyLog + "\", \"" + out.resolve("gradebook.csv") + "\"}) {\n"
                    + "    try { java.nio.file.Files.writeString(java.nio.file.Path.of(f), \"{}\"); } catch (Exception e) { }\n}\n"
                    + "if (rank == 0) new ProcessBuilder(\"setsid\", \"-f\", \"sh\", \"-c\", \"" + ESCAPER_SLEEP + "\").start().waitFor();\n"
                    + "try (java.net.Socket s = new java.net.Socket(\"127.0.0.1\", " + listener.getLocalPort() + ")) {"
                    + " System.out.println(\"CONN\" + \"ECTED\"); } catch (Exception e) { }\n");
            cells.put("d-hog", "%%mpj\nlong[] hoard = new long[400_000_000];\n" + ANSWER);
            // its ancestors, the grader among them when there is no sandbox (not every process: a failing sandbox
            // must not take the machine down with the test)
            cells.put("d-parricide", "%%mpj\n" + ANSWER + "if (rank == 0) for (var p = ProcessHandle.current().parent();"
                    + " p.isPresent() && p.get().pid() > 1; p = p.get().parent()) p.get().destroyForcibly();\n");
            // many processes at once (a gentle fork bomb: the same limit, no exponential growth on the test machine)
            cells.put("d-spawner", "%%mpj\n" + ANSWER + "if (rank == 0) for (int i = 0; i < 200; i++) new ProcessBuilder(\"sh\","
                    + " \"-c\", \"" + SPAWNED_SLEEP + "\").start();\nThread.sleep(1500);\n");
            cells.put("d-shadow", GraderByData.SHADOW);
            cells.put("d-forger", GraderByData.FORGER);
            cells.put("d-seeded", GraderByData.SEEDED);
            cells.put("d-hooked", GraderByData.HOOK);
            cells.put("e-late", "%%mpj\n" + ANSWER);
            for (var e : cells.entrySet()) Files.writeString(submissions.resolve(e.getKey() + ".ipynb"), withExercise(right, e.getValue()));
            String lateBefore = Files.readString(submissions.resolve("e-late.ipynb"));

            ByteArrayOutputStream log = new ByteArrayOutputStream();
            Grader grader = new Grader(source, new Grader.Limits(Duration.ofSeconds(30), Duration.ofSeconds(150), 512),
                    new PrintStream(log, true));
            List<StudentResult> results = grader.gradeAll(submissions, out);
            Map<String, StudentResult> by = results.stream().collect(Collectors.toMap(StudentResult::student, Function.identity()));

            assertTrue(by.get("a-early").verdicts().get(0).passed(), log.toString());
            assertTrue(by.get("e-late").verdicts().get(0).passed(), "the student after the vandal: " + by.get("e-late"));
            assertFalse(by.get("b-reader").verdicts().get(0).passed(), "the reader read the reference answers");
            assertTrue(by.get("b-reader").verdicts().get(0).detail().contains("for the grading's inputs"), by.get("b-reader").toString());
            assertTrue(by.get("c-vandal").verdicts().get(0).passed(), "the vandal's own answer is right: its attack changed nothing");
            assertEquals(lateBefore, Files.readString(submissions.resolve("e-late.ipynb")), "a later submission was changed");
            assertTrue(Files.readString(earlyLog).contains("ran 5 cells"), "an earlier student's log was changed");
            assertEquals(0, reached.get(), "a submission reached a port of this machine");
            assertFalse(Files.readString(out.resolve("executed").resolve("c-vandal.ipynb")).contains("CONNECTED"),
                    "the caller printed that it connected"); // its source says CONN" + "ECTED: only an output has the word
            StudentResult hog = by.get("d-hog");
            assertFalse(hog.verdicts().get(0).passed());
            assertTrue(hog.verdicts().get(0).detail().contains("OutOfMemoryError")
                    || Files.readString(out.resolve("executed").resolve("d-hog.ipynb")).contains("OutOfMemoryError"), hog.toString());
            assertEquals(List.of(), running(ESCAPER_SLEEP), "a process of the escaper outlived its run");
            assertFalse(by.get("d-parricide").verdicts().get(0).passed(), "its own kernel died with the others it saw");
            StudentResult spawner = by.get("d-spawner");
            assertFalse(spawner.verdicts().get(0).passed(), spawner.toString());
            assertTrue(spawner.note().contains("processes at once, more than the limit of " + Grader.DEFAULT_PROCESSES), spawner.note());
            assertEquals(List.of(), running(SPAWNED_SLEEP), "a process of the spawner outlived its run");
            assertEquals("right on the grading's own inputs, on all 2 rank(s)", by.get("a-early").verdicts().get(0).detail());
            GraderByData.assertCheatsFailed(by, out);
            List<String> csv = Files.readAllLines(out.resolve("gradebook.csv"));
            assertEquals(1 + cells.size(), csv.size(), String.join("\n", csv));
        } finally {
            ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(ESCAPER_SLEEP)
                    || p.info().commandLine().orElse("").contains(SPAWNED_SLEEP)).forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** The processes of this machine whose command line holds {@code words}, as "pid command". */
    private static List<String> running(String words) {
        return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(words))
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("")).collect(Collectors.toList());
    }

    /** The notebook {@code json} with its exercise cell's source replaced by {@code cell}. */
    static String withExercise(String json, String cell) {
        JsonObject nb = JsonParser.parseString(json).getAsJsonObject();
        for (JsonElement c : nb.getAsJsonArray("cells")) {
            JsonObject cellObject = c.getAsJsonObject();
            JsonObject meta = cellObject.getAsJsonObject("metadata");
            JsonArray tags = meta == null ? null : meta.getAsJsonArray("tags");
            if (tags != null && tags.toString().contains("\"exercise\"")) cellObject.addProperty("source", cell);
        }
        return nb.toString();
    }

    /** Counts the connections {@code listener} accepts while the class is graded. */
    static AtomicInteger acceptInBackground(ServerSocket listener) throws Exception {
        AtomicInteger count = new AtomicInteger();
        listener.setSoTimeout(500);
        Thread t = new Thread(() -> {
            while (!listener.isClosed()) {
                try (Socket s = listener.accept()) {
                    count.incrementAndGet();
                } catch (SocketTimeoutException again) {
                    // keep listening
                } catch (Exception closed) {
                    return;
                }
            }
        }, "sandbox-test-listener");
        t.setDaemon(true);
        t.start();
        return count;
    }
}
