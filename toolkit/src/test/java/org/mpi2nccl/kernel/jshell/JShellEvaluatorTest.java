package org.mpi2nccl.kernel.jshell;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class JShellEvaluatorTest {
    static JShellEvaluator jshell;

    @BeforeAll
    static void start() throws Exception {
        List<String> cp = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
        long t0 = System.nanoTime();
        jshell = JShellEvaluator.start(ClassLoader.getSystemClassLoader(), cp, List.of("import java.util.*;"));
        System.out.printf("JShell start: %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @AfterAll
    static void stop() {
        jshell.close();
    }

    @Test
    void lastExpressionIsTheCellValueAsAnObject() throws Exception {
        CellValue v = jshell.eval("int a = 20;\nList<Integer> xs = new ArrayList<>(List.of(a, 22));\nxs");
        assertTrue(v.present());
        assertEquals(List.of(20, 22), v.value());
        assertEquals(42, jshell.eval("a + 22").value());
        assertNull(jshell.eval("String s = null; s").value());
    }

    @Test
    void declarationsAndStatementsHaveNoValue() throws Exception {
        assertFalse(jshell.eval("int b = 1;").present());
        assertFalse(jshell.eval("System.out.print(\"\");").present());
    }

    @Test
    void stateIsKeptAcrossCells() throws Exception {
        jshell.eval("int counter = 0;");
        jshell.eval("counter += 5;");
        assertEquals(6, jshell.eval("counter + 1").value());
    }

    @Test
    void anErrorWithoutAMessageIsNamedNotNull() {
        CellError e = assertThrows(CellError.class, () -> jshell.eval("int deeper(int n) { return deeper(n + 1) + 1; }\ndeeper(0)"));
        assertEquals("StackOverflowError (no message)", e.getMessage());
        e = assertThrows(CellError.class, () -> jshell.eval("throw new IllegalStateException();"));
        assertEquals("IllegalStateException (no message)", e.getMessage());
        assertEquals("boom", assertThrows(CellError.class, () -> jshell.eval("throw new IllegalStateException(\"boom\");")).getMessage());
    }

    @Test
    void compileErrorNamesTheLine() {
        CellError e = assertThrows(CellError.class, () -> jshell.eval("int ok = 1;\nint bad = nosuch + 1;"));
        assertEquals(CellError.Kind.COMPILE, e.kind());
        assertTrue(e.traceback().get(0).startsWith("line 2:"), e.traceback().toString());
        assertTrue(e.getMessage().contains("cannot find symbol"), e.getMessage());
    }

    @Test
    void exceptionKeepsItsClassAndMessage() {
        CellError e = assertThrows(CellError.class, () -> jshell.eval("int z = 0;\nint q = 1 / z;"));
        assertEquals("java.lang.ArithmeticException", e.name());
        assertEquals("/ by zero", e.getMessage());
    }

    @Test
    void aStackTraceNamesTheCellLines() {
        CellError e = assertThrows(CellError.class, () -> jshell.eval(
                "int zero = 0;\n\nint inverse(int v) {\n  int w = v;\n  return 1 / w;\n}\n\ninverse(zero)"));
        String tb = String.join("\n", e.traceback());
        assertTrue(tb.contains("at inverse(cell line 5)"), tb);
        assertTrue(tb.contains("at (cell line 8)"), tb);
        assertFalse(tb.contains("#"), "no snippet ids: " + tb);
        CellError later = assertThrows(CellError.class, () -> jshell.eval("int one = 1;\ninverse(0)"));
        String tb2 = String.join("\n", later.traceback());
        assertTrue(tb2.contains("at inverse(line 5 of an earlier cell)"), tb2);
        assertTrue(tb2.contains("at (cell line 2)"), tb2);
    }

    @Test
    void linesCountFromWhereTheCodeStarts() {
        CellError e = assertThrows(CellError.class, () -> jshell.eval("int ok2 = 1;\nint bad2 = nosuch2;", 2));
        assertTrue(e.traceback().get(0).startsWith("line 3:"), e.traceback().toString());
        CellError ex = assertThrows(CellError.class, () -> jshell.eval("\n\nint q2 = 1 / (ok2 - 1);", 2));
        assertTrue(String.join("\n", ex.traceback()).contains("(cell line 4)"), ex.traceback().toString());
    }

    @Test
    void anArrayGoesToACommunicatorAsItIsAndATensorGetsAHint() throws CellError {
        jshell.eval("org.mpi2nccl.comm.Communicator comm = null;\norg.mpi2nccl.tensor.NDArray x = null;\n"
                + "Runnable r = () -> comm.allReduce(x, org.mpi2nccl.comm.Reduction.SUM);");
        CellError e = assertThrows(CellError.class, () -> jshell.eval(
                "org.mpi2nccl.autograd.Tensor t = null;\ncomm.allReduce(t, org.mpi2nccl.comm.Reduction.SUM);"));
        assertEquals(CellError.Kind.COMPILE, e.kind());
        String tb = String.join("\n", e.traceback());
        assertTrue(tb.startsWith("line 2:"), tb);
        assertTrue(tb.contains(".data()"), tb);
    }

    @Test
    void completionAndInspectionSeeTheCellsState() {
        assertDoesNotThrow(() -> jshell.eval("int completeMeCounter = 3;\nint twiceOf(int v) { return 2 * v; }"));
        Completion c = jshell.complete("completeMe", 10);
        assertNotNull(c);
        assertTrue(c.options().contains("completeMeCounter"), c.options().toString());
        assertEquals(0, c.anchor());
        String doc = jshell.inspect("twiceOf(3)", 2);
        assertNotNull(doc, "Shift-Tab on a method name");
        assertTrue(doc.contains("int twiceOf(int v)"), doc);
    }

    @Test
    void incompleteCellIsReported() {
        CellError e = assertThrows(CellError.class, () -> jshell.eval("for (int i = 0; i < 3; i++) {"));
        assertEquals(CellError.Kind.INCOMPLETE, e.kind());
        assertEquals("    ", jshell.isComplete("for (int i = 0; i < 3; i++) {"));
        assertEquals("complete", jshell.isComplete("int x = 1;"));
    }

    @Test
    void stopEndsAnEndlessLoop() throws Exception {
        CompletableFuture<CellError> running = CompletableFuture.supplyAsync(() -> {
            try {
                jshell.eval("long spins = 0; while (true) { spins++; }");
                return null;
            } catch (CellError e) {
                return e;
            }
        });
        Thread.sleep(500);
        assertTrue(jshell.stop(java.time.Duration.ofSeconds(10)), "stop() should end the cell");
        CellError e = running.get(10, TimeUnit.SECONDS);
        assertNotNull(e, "the loop should have been stopped with an error");
        assertEquals(CellError.Kind.INTERRUPTED, e.kind());
        assertEquals(3, jshell.eval("1 + 2").value(), "the evaluator works after a stop");
    }
}
