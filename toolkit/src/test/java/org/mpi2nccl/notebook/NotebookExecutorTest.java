package org.mpi2nccl.notebook;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A notebook run in-process: outputs as Jupyter would save them, errors, time limits, the file written. */
class NotebookExecutorTest {
    private static final PrintStreamSink LOG = new PrintStreamSink();

    static String notebook(String... cells) {
        StringBuilder sb = new StringBuilder("{\"nbformat\": 4, \"nbformat_minor\": 4, \"metadata\": {}, \"cells\": [");
        for (int i = 0; i < cells.length; i++) {
            String c = cells[i];
            if (i > 0) sb.append(',');
            if (c.startsWith("#md ")) {
                sb.append("{\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": ").append(json(c.substring(4))).append('}');
            } else {
                sb.append("{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": 7, \"outputs\": [{\"output_type\":")
                        .append(" \"stream\", \"name\": \"stdout\", \"text\": \"stale\"}], \"source\": ").append(json(c)).append('}');
            }
        }
        return sb.append("]}").toString();
    }

    static String json(String s) {
        return new com.google.gson.Gson().toJson(s);
    }

    static NotebookExecutor executor(int cellSeconds, boolean allowErrors) {
        return new NotebookExecutor(new NotebookExecutor.Options(Duration.ofSeconds(cellSeconds), Duration.ofMinutes(5),
                allowErrors), LOG.stream());
    }

    static JsonArray outputs(Notebook nb, int cell) {
        return nb.cells().get(cell).getAsJsonArray("outputs");
    }

    @Test
    void outputsExecutionCountsAndTheFileAreAsJupyterSavesThem(@TempDir Path dir) throws Exception {
        Notebook nb = Notebook.parse(notebook("#md # Title",
                "System.out.println(\"one\");\nSystem.err.println(\"warn\");\nSystem.out.println(\"two\");",
                "int x = 6 * 7;\nx",
                "html(\"<b>bold</b>\");"), "test");
        Path out = dir.resolve("run.ipynb");
        NotebookExecutor.Result r = executor(60, false).run(nb, out);
        assertTrue(r.clean(), r.toString());
        assertEquals(3, r.cellsRun());
        Notebook saved = Notebook.read(out);
        JsonArray first = outputs(saved, 1);
        String all = first.toString();
        assertTrue(all.contains("one\\n") && all.contains("two\\n") && all.contains("warn\\n"), all);
        assertFalse(all.contains("stale"), "old outputs are cleared: " + all);
        JsonObject result = outputs(saved, 2).get(0).getAsJsonObject();
        assertEquals("execute_result", result.get("output_type").getAsString());
        assertEquals("42", CellOutputs.joined(result.getAsJsonObject("data").get("text/plain")));
        assertEquals(2, result.get("execution_count").getAsInt());
        assertEquals(2, saved.cells().get(2).get("execution_count").getAsInt());
        JsonObject shown = outputs(saved, 3).get(0).getAsJsonObject();
        assertEquals("display_data", shown.get("output_type").getAsString());
        assertTrue(shown.getAsJsonObject("data").has("text/html"), shown.toString());
        for (JsonObject cell : saved.cells()) {
            assertTrue(cell.get("id").getAsString().matches("[a-zA-Z0-9_-]{1,64}"), "cell id " + cell.get("id"));
        }
        assertTrue(Files.readString(out).contains("\"nbformat_minor\": 5"));
    }

    @Test
    void anErrorStopsTheRunUnlessErrorsAreAllowed() throws Exception {
        String text = notebook("int y = 1;", "throw new IllegalStateException(\"boom\");", "System.out.println(\"after\");");
        Notebook stopped = Notebook.parse(text, "test");
        NotebookExecutor.Result r = executor(60, false).run(stopped, null);
        assertEquals(1, r.failures().size());
        assertEquals(2, r.failures().get(0).cell());
        assertTrue(r.failures().get(0).message().contains("boom"), r.failures().toString());
        assertEquals("error", outputs(stopped, 1).get(0).getAsJsonObject().get("output_type").getAsString());
        assertEquals(0, outputs(stopped, 2).size(), "the cell after the error does not run");
        assertTrue(stopped.cells().get(2).get("execution_count").isJsonNull());
        // as written: nbformat wants the key, null, on a cell that did not run (the file must validate)
        assertTrue(stopped.toJson().contains("\"execution_count\": null"), "the unrun cell's count is written as null");

        Notebook going = Notebook.parse(text, "test");
        NotebookExecutor.Result r2 = executor(60, true).run(going, null);
        assertEquals(1, r2.failures().size());
        assertNull(r2.stoppedBecause());
        assertTrue(outputs(going, 2).toString().contains("after"));
    }

    @Test
    void aCellPastItsLimitIsInterruptedAndTheKernelGoesOn() throws Exception {
        Notebook nb = Notebook.parse(notebook("long n = 0; while (true) { n++; }", "System.out.println(\"next\");"),
                "test");
        long t0 = System.nanoTime();
        NotebookExecutor.Result r = executor(2, true).run(nb, null);
        assertTrue(Duration.ofNanos(System.nanoTime() - t0).toSeconds() < 30, "the loop was stopped");
        assertEquals("CellTimeoutError", r.failures().get(0).name());
        assertTrue(outputs(nb, 0).toString().contains("ran past its 2 s limit"), outputs(nb, 0).toString());
        assertTrue(outputs(nb, 1).toString().contains("next"), "the kernel runs the next cell: " + outputs(nb, 1));
    }

    @Test
    void aFileThatIsNotANotebookSaysSo(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.ipynb");
        Files.writeString(bad, "{\"cells\": [ oops");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Notebook.read(bad));
        assertTrue(e.getMessage().contains("not valid JSON"), e.getMessage());
        Files.writeString(bad, "{\"nbformat\": 3, \"cells\": []}");
        e = assertThrows(IllegalArgumentException.class, () -> Notebook.read(bad));
        assertTrue(e.getMessage().contains("nbformat 3"), e.getMessage());
    }

    /** The executor's log, kept out of the test report. */
    static final class PrintStreamSink {
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();

        java.io.PrintStream stream() {
            return new java.io.PrintStream(bytes, true);
        }

        List<String> lines() {
            return List.of(bytes.toString().split("\n"));
        }
    }
}
