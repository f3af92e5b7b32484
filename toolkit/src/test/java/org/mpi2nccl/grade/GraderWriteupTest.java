package org.mpi2nccl.grade;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A class graded twice, the way an instructor marks write-ups: the first run counts each student's words and writes
 * marks.csv with empty marks; the instructor types a mark (and one for a student who is not in the class); the
 * second run shows the mark in the gradebook and keeps both rows. Students run in kernels of their own, without a
 * sandbox (the write-up never reaches a kernel; GraderSandboxTest covers the sandbox).
 */
class GraderWriteupTest {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void marksTypedBetweenTwoRunsShowInTheGradebookAndStayInTheFile(@TempDir Path dir) throws Exception {
        Path source = WriteupFixture.write(WriteupFixture.source(), dir.resolve("source").resolve("lesson.ipynb"));
        Path submitted = dir.resolve("submitted");
        WriteupFixture.write(WriteupFixture.student("int answer = 42;", "Bigger buckets, fewer calls, a shorter step."),
                submitted.resolve("alice.ipynb"));
        WriteupFixture.write(WriteupFixture.student("int answer = 41;", WriteupFixture.HOSTILE), submitted.resolve("mallory.ipynb"));
        WriteupFixture.write(WriteupFixture.student("int answer = 42;", Writeup.PLACEHOLDER), submitted.resolve("blank.ipynb"));
        Path out = dir.resolve("graded");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Grader grader = new Grader(source, new Grader.Limits(Duration.ofSeconds(60), Duration.ofSeconds(120)),
                new PrintStream(log, true), false);
        assertEquals(List.of(WriteupFixture.WRITEUP), grader.writeups());

        grader.gradeAll(submitted, out);
        Path marks = out.resolve("marks.csv");
        assertEquals(List.of("student,writeup,words,mark", "alice,analysis,7,", "blank,analysis,0,", "mallory,analysis,9,"),
                Files.readAllLines(marks), log.toString());
        List<String> csv = Files.readAllLines(out.resolve("gradebook.csv"));
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("alice,answer,pass,RIGHT (1 verdict),")), String.join("\n", csv));
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("mallory,answer,fail,NOT YET: the answer is not 42")), String.join("\n", csv));
        assertTrue(log.toString().contains("2 write-up(s) to mark by hand"), log.toString());

        Files.writeString(marks, Files.readString(marks).replace("alice,analysis,7,", "alice,analysis,7,4")
                + "zed,analysis,30,5\n");
        grader.gradeAll(submitted, out);

        assertEquals(List.of("student,writeup,words,mark", "alice,analysis,7,4", "blank,analysis,0,", "mallory,analysis,9,",
                "zed,analysis,30,5"), Files.readAllLines(marks), log.toString());
        String book = Files.readString(out.resolve("gradebook.csv"));
        assertTrue(book.contains("alice,analysis,written,7 words; marked by hand: 4,"), book);
        assertFalse(book.contains("zed"), "a student without a submission gets no row: " + book);
        assertTrue(log.toString().contains("zed's analysis (mark 5): no submission of that name was graded"), log.toString());
        String html = Files.readString(out.resolve("gradebook.html"));
        assertTrue(html.contains("7 words &middot; mark: 4"), html);
        assertFalse(html.contains("<script"), html);
    }
}
