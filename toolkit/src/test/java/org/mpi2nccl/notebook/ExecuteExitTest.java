package org.mpi2nccl.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code execute} on a notebook whose cell calls a library that ends the JVM (a command-line main that calls
 * System.exit(0)): the run ends with a failing status, says which cell and which call, and the executed notebook
 * holds that cell's error and no run of the cells after it. It runs in a JVM of its own: the JVM does end.
 */
class ExecuteExitTest {
    @Test
    void aLibrarysExitFailsTheRunAndNamesTheCellAndTheCall(@TempDir Path dir) throws Exception {
        Path in = Files.writeString(dir.resolve("exits.ipynb"), NotebookExecutorTest.notebook("int a = 1;",
                "org.mpi2nccl.cli.Main.main(new String[] {\"--version\"});", "int b = 2;"));
        Path out = dir.resolve("out.ipynb");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "org.mpi2nccl.cli.Main", "execute", "--output", out.toString(), in.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).directory(dir.toFile()).start();
        p.getOutputStream().close();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), said);
        assertEquals(NotebookExecutor.EXITED, p.exitValue(), said);
        assertTrue(said.contains("cell 2 ended the JVM: System.exit, called by org.mpi2nccl.cli.Main.main")
                && said.contains("the cells after it did not run"), said);
        Notebook nb = Notebook.read(out);
        JsonObject second = nb.cells().get(1);
        assertTrue(second.get("outputs").toString().contains("\"ename\":\"JvmExit\""), second.toString());
        assertTrue(second.get("outputs").toString().contains("a library the cell called ended the kernel's JVM"), second.toString());
        JsonObject third = nb.cells().get(2);
        assertTrue(third.get("execution_count") == null || third.get("execution_count").isJsonNull(), "the third cell did not run: " + third);
        assertEquals(0, third.getAsJsonArray("outputs").size(), third.toString());
    }
}
