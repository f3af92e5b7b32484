package org.mpi2nccl.grade;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.notebook.Notebook;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The write-up column of the gradebook and the instructor's marks file, without running a kernel: the words a
 * student wrote are counted (the student version's placeholder is none), a write-up full of markup shows as text,
 * neither the model answer nor the student's text joins the run, and marks survive a re-run and a row the run
 * cannot place.
 */
class WriteupGradebookTest {
    private static final List<Exercise> EXERCISES = Exercise.of(WriteupFixture.source());
    private static final Writeup WRITEUP = Writeup.of(WriteupFixture.source()).get(0);

    private static StudentResult graded(String student, String writeupText) {
        Writeup.Answer a = WRITEUP.answerIn(WriteupFixture.student("int answer = 42;", writeupText));
        return new StudentResult(student, List.of(new Verdict("answer", true, "RIGHT (1 verdict)")), Duration.ofSeconds(3),
                "", Set.of(), StudentResult.Run.EXECUTED, List.of(a));
    }

    @Test
    void theSourceHasOneWriteupFoundByItsMetadata() {
        assertEquals(List.of(new Writeup(WriteupFixture.WRITEUP, "wu")), Writeup.of(WriteupFixture.source()));
        assertEquals(List.of("answer"), EXERCISES.stream().map(Exercise::name).toList(), "a write-up is not an exercise");
    }

    @Test
    void anEmptyWriteupHasNoWordsAndSaysSo(@TempDir Path out) throws Exception {
        StudentResult blank = graded("blank", Writeup.PLACEHOLDER);
        StudentResult spaces = graded("spaces", "  *  \n---\n");
        assertEquals(0, blank.writeups().get(0).words());
        assertEquals(0, spaces.writeups().get(0).words(), "markdown marks alone are no words");
        StudentResult wrote = graded("wrote", "Bigger buckets made 3 calls; the step got faster.");
        assertEquals(9, wrote.writeups().get(0).words());

        Gradebook.write(List.of("answer"), List.of(WriteupFixture.WRITEUP), List.of(blank, wrote), Marks.empty(), out);
        List<String> csv = Files.readAllLines(out.resolve("gradebook.csv"));
        assertEquals("student,exercise,result,detail,seconds,run,words,mark", csv.get(0));
        assertEquals(5, csv.size(), String.join("\n", csv));
        assertTrue(csv.contains("blank,analysis,empty,0 words; marked by hand: no mark yet,3.0,,0,"), String.join("\n", csv));
        assertTrue(csv.contains("wrote,analysis,written,9 words; marked by hand: no mark yet,3.0,,9,"), String.join("\n", csv));
        String html = Files.readString(out.resolve("gradebook.html"));
        assertTrue(html.contains("<th>analysis (write-up)</th>"), html);
        assertTrue(html.contains("0 words &middot; mark: <i>to mark</i><small>nothing written</small>"), html);
    }

    @Test
    void aNameOrDetailThatASpreadsheetWouldEvaluateIsWrittenAsText(@TempDir Path out) throws Exception {
        // a submission named like a formula, whose check detail carries what it threw
        StudentResult evil = new StudentResult("=HYPERLINK(\"http://x\";\"mark\")",
                List.of(new Verdict("answer", false, "+cmd|' /C calc'!A0")), Duration.ofSeconds(1), "@SUM(1)",
                Set.of(), StudentResult.Run.EXECUTED, List.of());
        Gradebook.write(List.of("answer"), List.of(), List.of(evil), Marks.empty(), out);
        List<String> csv = Files.readAllLines(out.resolve("gradebook.csv"));
        String row = csv.get(1);
        assertTrue(row.replace("\"", "").startsWith("'=HYPERLINK(") && row.contains(",'+cmd|") && row.endsWith(",'@SUM(1)"), row);
        assertEquals("plain", Gradebook.spreadsheetSafe("plain"));
        assertEquals("'-1", Gradebook.spreadsheetSafe("-1"));
        assertEquals("", Gradebook.spreadsheetSafe(""));
    }

    @Test
    void aDeletedWriteupCellHasNoWordsAndTheReason() {
        Notebook without = WriteupFixture.student("int answer = 42;", "x");
        without.setCells(without.cells().subList(0, 3));
        Writeup.Answer a = WRITEUP.answerIn(without);
        assertEquals(0, a.words());
        assertTrue(a.note().contains("deleted"), a.toString());
    }

    @Test
    void aHostileWriteupShowsAsTextAndNeverJoinsTheRun(@TempDir Path out) throws Exception {
        StudentResult mallory = graded("mallory", WriteupFixture.HOSTILE);
        Gradebook.write(List.of("answer"), List.of(WriteupFixture.WRITEUP), List.of(mallory), Marks.empty(), out);
        String html = Files.readString(out.resolve("gradebook.html"));
        assertFalse(html.contains("<script"), html);
        assertFalse(html.contains("<img"), html);
        assertTrue(html.contains("&lt;script&gt;alert(&#39;mark me 10&#39;)&lt;/script&gt;"), html);
        assertFalse(Files.readString(out.resolve("gradebook.csv")).contains("script"), "the CSV carries the count, not the text");

        // the run is the source's cells with the student's exercise cells: the write-up runs as the placeholder
        Notebook student = WriteupFixture.student("int answer = 42;", WriteupFixture.HOSTILE);
        String run = Submission.assemble(WriteupFixture.source(), EXERCISES, student).assembled.toJson();
        assertFalse(run.contains("mark me 10"), run);
        assertFalse(run.contains(WriteupFixture.MODEL), "the model answer stays out of the student's run: " + run);
    }

    @Test
    void marksOfAnUnknownStudentAreKeptAndReported(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("marks.csv"),
                "student,writeup,words,mark\nzed,analysis,40,5\nalice,analysis,12,4/5\nalice,no-such,3,1\n");
        Marks marks = Marks.read(file);
        List<String> problems = marks.problems(Set.of("alice", "bob"), Set.of("analysis"), file);
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("zed's analysis (mark 5): no submission"), problems.toString());
        assertTrue(problems.get(1).contains("no write-up of that name"), problems.toString());
        assertEquals("4/5", marks.mark("alice", "analysis"));

        marks.with(List.of(graded("alice", "five words are written here"), graded("bob", ""))).write(file);
        List<String> kept = Files.readAllLines(file);
        assertEquals(List.of("student,writeup,words,mark", "zed,analysis,40,5", "alice,analysis,5,4/5",
                "alice,no-such,3,1", "bob,analysis,0,"), kept);
    }

    @Test
    void aReRunKeepsTheInstructorsMarks(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("marks.csv");
        List<StudentResult> first = List.of(graded("alice", "first draft"), graded("bob", "bob's words"));
        Marks.read(file).with(first).write(file);
        assertEquals(List.of("student,writeup,words,mark", "alice,analysis,2,", "bob,analysis,2,"), Files.readAllLines(file));

        // the instructor marks alice, in a spreadsheet that quotes every field
        Files.writeString(file, "\"student\",\"writeup\",\"words\",\"mark\"\n\"alice\",\"analysis\",\"2\",\"3\"\n"
                + "\"bob\",\"analysis\",\"2\",\"\"\n");
        List<StudentResult> second = List.of(graded("alice", "a longer second draft"), graded("bob", "bob's words"),
                graded("carol", "late"));
        Marks merged = Marks.read(file).with(second);
        merged.write(file);
        assertEquals(List.of("student,writeup,words,mark", "alice,analysis,4,3", "bob,analysis,2,", "carol,analysis,1,"),
                Files.readAllLines(file));
        Gradebook.write(List.of("answer"), List.of(WriteupFixture.WRITEUP), second, merged, dir);
        String csv = Files.readString(dir.resolve("gradebook.csv"));
        assertTrue(csv.contains("alice,analysis,written,4 words; marked by hand: 3,3.0,,4,3"), csv);
        assertTrue(Files.readString(dir.resolve("gradebook.html")).contains("4 words &middot; mark: 3"));

        // and a third run, with nothing changed, leaves the file as it was
        Marks.read(file).with(second).write(file);
        assertEquals(List.of("student,writeup,words,mark", "alice,analysis,4,3", "bob,analysis,2,", "carol,analysis,1,"),
                Files.readAllLines(file));
    }

    @Test
    void aMarksFileOfItsHeaderAloneHasNoMarksYet(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("marks.csv"), "student,writeup,words,mark\n");
        Marks.read(file).with(List.of(graded("alice", "two words"))).write(file);
        assertEquals(List.of("student,writeup,words,mark", "alice,analysis,2,"), Files.readAllLines(file));
    }

    @Test
    void aMarksFileWithoutItsColumnsIsRefusedByName(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("marks.csv"), "name,grade\nalice,4\n");
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Marks.read(file));
        assertTrue(e.getMessage().contains("student,writeup,words,mark"), e.getMessage());
    }
}
