package org.mpi2nccl.grade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.notebook.Notebook;

/**
 * Exercises that ask for a construction (lesson 02's ring from Sendrecv, lesson 07's ZeRO-1 step from a reduce-scatter
 * and an all-gather) are failed when the answer calls the library collective instead, whatever its numbers; the
 * lessons' own answers and honest ones that only mention a collective keep their marks.
 */
class HowCheckTest {
    private static final Path NOTEBOOKS = org.mpi2nccl.Checkout.notebooks();

    private static HowCheck.Rule rule(String lesson, String exercise) throws Exception {
        Notebook nb = Notebook.read(NOTEBOOKS.resolve(lesson));
        JsonObject cell = nb.cells().stream().filter(c -> exercise.equals(Notebook.exercise(c))).findFirst().orElseThrow();
        return HowCheck.of(cell).orElseThrow(() -> new AssertionError(lesson + " " + exercise + " names no calls to avoid"));
    }

    private static String answer(String lesson, String exercise) throws Exception {
        Notebook nb = Notebook.read(NOTEBOOKS.resolve(lesson));
        return Notebook.source(nb.cells().stream().filter(c -> exercise.equals(Notebook.exercise(c))).findFirst().orElseThrow());
    }

    @Test
    void theLessonsOwnAnswersKeepToTheirRules() throws Exception {
        for (String[] e : List.of(new String[] {"02-allreduce-from-scratch.ipynb", "reduce-scatter"},
                new String[] {"02-allreduce-from-scratch.ipynb", "all-gather"},
                new String[] {"07-sharded-optimizer.ipynb", "sharded-step"},
                new String[] {"09-fully-sharded.ipynb", "fsdp-unit"},
                new String[] {"03-data-parallel-mpi.ipynb", "wrapper"})) {
            assertEquals(Optional.empty(), HowCheck.broken(rule(e[0], e[1]), answer(e[0], e[1])), e[1]);
        }
    }

    @Test
    void aLibraryCollectiveFailsWithItsNameAndLine() throws Exception {
        HowCheck.Rule ring = rule("02-allreduce-from-scratch.ipynb", "all-gather");
        String cheat = "%%mpj\nvoid allGather(float[] buf) {\n    int n = buf.length;\n"
                + "    MPI.COMM_WORLD.Allgatherv(buf, start(n, rank), length(n, rank), MPI.FLOAT, buf, 0, lengths, starts, MPI.FLOAT);\n}\n"
                + "void allReduce(float[] buf) {\n    reduceScatter(buf);\n    allGather(buf);\n}\n";
        String why = HowCheck.broken(ring, cheat).orElseThrow();
        assertTrue(why.contains("Allgatherv") && why.contains("line 4") && why.contains("from Sendrecv"), why);
        String spaced = "%%mpj\nvoid allGather(float[] buf) { mpj . allGather ( HostBuffer.of(buf), HostBuffer.of(buf) ); }";
        assertTrue(HowCheck.broken(ring, spaced).orElseThrow().contains("allGather"), "the toolkit's collective, spaced out");
        HowCheck.Rule zero = rule("07-sharded-optimizer.ipynb", "sharded-step");
        String plain = "%%mpj\nvoid shardedStep(float[] params, float[] grads, float[] velocity) {\n"
                + "    ring.allReduce(HostBuffer.of(grads), Reduction.AVG);\n}\n";
        assertTrue(HowCheck.broken(zero, plain).orElseThrow().contains("allReduce (line 3"), "ZeRO-1 by all-reduce");
    }

    @Test
    void aWrapperThatHandsTheWorkToTheLibrarysDataParallelFails() throws Exception {
        HowCheck.Rule wrapper = rule("03-data-parallel-mpi.ipynb", "wrapper");
        String wrapped = "%%mpj\nclass MyDataParallel implements Lesson03Wrapper.Wrapper {\n"
                + "    private final org.mpi2nccl.parallel.DataParallel dp;\n"
                + "    MyDataParallel(Module m, Communicator c, long b, ExecutorService t) { dp = new DataParallel(m, c); }\n}\n";
        String why = HowCheck.broken(wrapper, wrapped).orElseThrow();
        assertTrue(why.contains("DataParallel") && why.contains("line 3"), why);
        String own = "%%mpj\nclass MyDataParallel implements Lesson03Wrapper.Wrapper {\n"
                + "    // unlike the library's DataParallel, built on planBuckets\n    MyDataParallel dp;\n}\n";
        assertEquals(Optional.empty(), HowCheck.broken(wrapper, own), "a comment, and a name that only contains it");
    }

    @Test
    void commentsStringsAndTheStudentsOwnFunctionsAreNotCalls() throws Exception {
        HowCheck.Rule ring = rule("02-allreduce-from-scratch.ipynb", "reduce-scatter");
        String honest = "%%mpj\n// unlike MPI.COMM_WORLD.Allreduce(...), this sends one segment a step\n"
                + "/* Reduce_scatter( would do it all */ void reduceScatter(float[] buf) {\n"
                + "    String note = \"not .Allreduce(\"; char c = '(';\n"
                + "    MPI.COMM_WORLD.Sendrecv(buf, 0, 1, MPI.FLOAT, right, 20, buf, 0, 1, MPI.FLOAT, left, 20);\n}\n"
                + "void allReduce(float[] buf) { reduceScatter(buf); allGather(buf); }\n";
        assertEquals(Optional.empty(), HowCheck.broken(ring, honest));
        String block = "%%mpj\nString s = \"\"\"\n  MPI.COMM_WORLD.Allreduce(x)\n  \"\"\";\nvoid reduceScatter(float[] b) {}\n";
        assertEquals(Optional.empty(), HowCheck.broken(ring, block), "a text block");
    }

    @Test
    void reflectionThatCouldNameTheCallInPiecesFails() throws Exception {
        HowCheck.Rule ring = rule("02-allreduce-from-scratch.ipynb", "reduce-scatter");
        String sneaky = "%%mpj\nvoid reduceScatter(float[] buf) throws Exception {\n"
                + "    var m = MPI.COMM_WORLD.getClass().getMethod(\"All\" + \"reduce\", Object.class, int.class);\n}\n";
        String why = HowCheck.broken(ring, sneaky).orElseThrow();
        assertTrue(why.contains("reflection") && why.contains("getMethod") && why.contains("line 3"), why);
    }

    @Test
    void aClassNamedLikeTheChecksOrANameHidingAPackageIsAHijack() throws Exception {
        List<String> checks = List.of("%%mpj\nLesson02.checkAllReduce(mpj, buf -> allReduce(buf))");
        String own = "%%mpj\nvoid allGather(float[] buf) { }\n\nclass Lesson02 {\n  static String checkAllReduce(Object w,"
                + " Object f) { return \"RIGHT\"; }\n}";
        String why = HowCheck.shadows(own, checks, "").orElseThrow();
        assertTrue(why.contains("declares its own Lesson02") && why.contains("line 4"), why);
        // the class the exercise asks for is the student's to write, even where the check names it
        List<String> wrapperCheck = List.of("%%mpj\nLesson03Wrapper.check(rank, size, comm, (m, c, b, t) -> new MyDataParallel(m, c, b, t))");
        String asked = "%%mpj\nclass MyDataParallel implements Lesson03Wrapper.Wrapper { }";
        assertEquals(Optional.empty(), HowCheck.shadows(asked, wrapperCheck, asked), "the asked-for class");
        String hijack = "%%mpj\nclass MyDataParallel { }\nclass Lesson03Wrapper { static String check(Object... o) { return \"RIGHT\"; } }";
        assertTrue(HowCheck.shadows(hijack, wrapperCheck, asked).orElseThrow().contains("declares its own Lesson03Wrapper"));
        String pkg = "%%mpj\ndouble globalMean(MpiComm comm, double[] local) { return 0; }\nObject org = null;\n";
        assertTrue(HowCheck.shadows(pkg, List.of("Lesson01.checkGlobalMean((comm, data) -> globalMean(comm, data))"), "").orElseThrow()
                .contains("hides the package org"), "a variable named org");
        assertEquals(Optional.empty(), HowCheck.shadows("%%mpj\nimport java.util.*;\nclass Helper { }\n"
                + "var x = org.mpi2nccl.lessons.Lesson02.segmentStart(7, 2, 1); // class Lesson02\n", checks, ""),
                "imports, a helper class of another name, a qualified call and a comment");
    }

    @Test
    void noLessonsOwnAnswerHidesWhatItsChecksUse() throws Exception {
        try (var files = java.nio.file.Files.list(NOTEBOOKS)) {
            for (Path lesson : files.filter(f -> f.toString().endsWith(".ipynb")).sorted().toList()) {
                Notebook nb = Notebook.read(lesson);
                for (Exercise ex : Exercise.of(nb)) {
                    String code = nb.cells().stream().filter(c -> ex.cellId().equals(Notebook.id(c))).map(Notebook::source)
                            .findFirst().orElseThrow();
                    List<String> checks = nb.cells().stream().filter(c -> ex.checkIds().contains(Notebook.id(c)))
                            .map(Notebook::source).toList();
                    assertEquals(Optional.empty(), HowCheck.shadows(code, checks, code), lesson.getFileName() + " " + ex.name());
                }
            }
        }
    }

    @Test
    void anExerciseWithoutARuleIsLeftAlone() throws Exception {
        Notebook nb = Notebook.read(NOTEBOOKS.resolve("03-data-parallel-mpi.ipynb"));
        JsonObject avg = nb.cells().stream().filter(c -> "average-gradients".equals(Notebook.exercise(c))).findFirst().orElseThrow();
        assertFalse(HowCheck.of(avg).isPresent(), "averaging gradients is done with the all-reduce itself");
    }
}
