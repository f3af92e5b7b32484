package org.mpi2nccl.grade;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * Lesson 02 graded whole (class02, made by notebooks/test/make_grading_class.py): the student who answers the
 * all-gather with MPI's Allgatherv gets right numbers and no mark for it, named; the one who declares a Lesson02 of
 * its own, whose check prints RIGHT, gets no mark either; the honest student, whose answers only mention the
 * library's collectives in comments and strings, keeps both marks.
 */
class GraderHowTest {
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aRingAnsweredWithTheLibrarysCollectiveGetsNoMark(@TempDir Path out) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Path source = Files.copy(GraderTest.resource("lesson02-short.ipynb"),
                Files.createDirectories(out.resolve("source")).resolve("lesson02.ipynb"));
        Grader grader = new Grader(source, new Grader.Limits(Duration.ofSeconds(30), Duration.ofSeconds(150)),
                new PrintStream(log, true));
        assertEquals(List.of("reduce-scatter", "all-gather"), grader.exercises());
        Map<String, StudentResult> by = grader.gradeAll(GraderTest.resource("class02"), out).stream()
                .collect(Collectors.toMap(StudentResult::student, Function.identity()));
        assertEquals(3, by.size(), log.toString());

        StudentResult honest = by.get("honest");
        assertEquals(2, honest.passed(), honest + "\n" + log);
        StudentResult library = by.get("library");
        assertTrue(library.verdicts().get(0).passed(), "its reduce-scatter is the ring: " + library);
        Verdict allGather = library.verdicts().get(1);
        assertFalse(allGather.passed(), library.toString());
        assertTrue(allGather.detail().contains("calls Allgatherv") && allGather.detail().contains("from Sendrecv")
                && allGather.detail().contains("its numbers were right"), allGather.detail());
        StudentResult shadow = by.get("shadow");
        assertTrue(shadow.verdicts().get(0).passed(), "its reduce-scatter is the ring: " + shadow);
        Verdict hijacked = shadow.verdicts().get(1);
        assertFalse(hijacked.passed(), "a check class of its own printed RIGHT: " + shadow);
        assertTrue(hijacked.detail().contains("declares its own Lesson02"), hijacked.detail());
        String book = Files.readString(out.resolve("gradebook.csv"));
        assertTrue(book.contains("calls Allgatherv"), "the gradebook says why: " + book);
    }
}
