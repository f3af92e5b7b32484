package org.mpi2nccl.grade;

import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.io.csv.CsvReadOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The instructor's marks of the write-ups: a CSV file of student, writeup, words, mark (marks.csv beside the
 * gradebook unless {@code grade --marks} names another). The grader fills in a row for every student and write-up
 * it graded, with the word count and an empty mark; the instructor types the marks; the next run shows them in the
 * gradebook. A row is never dropped, so a mark survives every re-run: one for a student or write-up this run does
 * not know (a name mistyped, a submission taken out) stays in the file, and the run says so.
 */
final class Marks {
    static final String FILE = "marks.csv";
    static final List<String> HEADER = List.of("student", "writeup", "words", "mark");

    record Key(String student, String writeup) {}

    /** The file's rows in order, keyed by student and write-up: words and mark of each. */
    private final Map<Key, String[]> rows = new LinkedHashMap<>();
    /** Rows that name a student and write-up already seen: the later one's mark is the one kept. */
    private final List<Key> twice = new ArrayList<>();

    private Marks() {
    }

    static Marks empty() {
        return new Marks();
    }

    /** The marks in {@code file}; none when there is no file yet. */
    static Marks read(Path file) throws IOException {
        Marks m = new Marks();
        if (!Files.isRegularFile(file)) return m;
        // every column as text: a mark is whatever the instructor types ("4", "4/5", "B+"), and a student's name
        // that looks like a number stays as written
        Table t = Table.read().csv(CsvReadOptions.builder(file.toFile()).columnTypes(c -> ColumnType.STRING)
                .missingValueIndicator("").build());
        for (String needed : List.of("student", "writeup", "mark")) {
            if (!t.columnNames().contains(needed)) {
                throw new IllegalArgumentException(file + " has no column '" + needed + "': its first line must be "
                        + String.join(",", HEADER));
            }
        }
        boolean hasWords = t.columnNames().contains("words");
        for (int i = 0; i < t.rowCount(); i++) {
            Key k = new Key(t.stringColumn("student").get(i).strip(), t.stringColumn("writeup").get(i).strip());
            if (k.student().isEmpty() || k.writeup().isEmpty()) continue;
            String mark = t.stringColumn("mark").get(i).strip();
            String words = hasWords ? t.stringColumn("words").get(i).strip() : "";
            String[] before = m.rows.get(k);
            if (before != null) {
                m.twice.add(k);
                if (mark.isEmpty()) mark = before[1];   // an empty later row does not wipe a mark
            }
            m.rows.put(k, new String[] {words, mark});
        }
        return m;
    }

    /** The instructor's mark of this student's write-up, or "" when it has none yet. */
    String mark(String student, String writeup) {
        String[] r = rows.get(new Key(student, writeup));
        return r == null ? "" : r[1];
    }

    /**
     * Sentences about rows this run cannot place: a student without a submission here, a write-up the lesson does
     * not have, a student and write-up given twice. The rows stay in the file.
     */
    List<String> problems(Set<String> students, Set<String> writeups, Path file) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<Key, String[]> e : rows.entrySet()) {
            Key k = e.getKey();
            String what = k.student() + "'s " + k.writeup() + (e.getValue()[1].isEmpty() ? "" : " (mark " + e.getValue()[1] + ")");
            if (!writeups.contains(k.writeup())) {
                out.add(file + ": " + what + ": the lesson has no write-up of that name; the row is kept, not shown");
            } else if (!students.contains(k.student())) {
                out.add(file + ": " + what + ": no submission of that name was graded; the row is kept, not shown");
            }
        }
        for (Key k : twice) {
            out.add(file + ": " + k.student() + "'s " + k.writeup() + " is given twice; the last mark is the one kept");
        }
        return out;
    }

    /**
     * These marks with a row for every graded student and write-up: a new row gets the word count and an empty
     * mark, a known row its new word count and the mark it had; every other row is kept as it is.
     */
    Marks with(List<StudentResult> results) {
        Marks m = new Marks();
        rows.forEach((k, v) -> m.rows.put(k, v.clone()));
        for (StudentResult r : results) {
            for (Writeup.Answer a : r.writeups()) {
                Key k = new Key(r.student(), a.writeup());
                String[] old = m.rows.get(k);
                m.rows.put(k, new String[] {Integer.toString(a.words()), old == null ? "" : old[1]});
            }
        }
        return m;
    }

    void write(Path file) throws IOException {
        StringColumn student = StringColumn.create("student"), writeup = StringColumn.create("writeup"),
                words = StringColumn.create("words"), mark = StringColumn.create("mark");
        rows.forEach((k, v) -> {
            student.append(k.student());
            writeup.append(k.writeup());
            words.append(v[0]);
            mark.append(v[1]);
        });
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        // written beside and moved: a run stopped half-way never leaves a file with half the marks
        Path part = file.resolveSibling(file.getFileName() + ".part");
        Table.create("marks", student, writeup, words, mark).write().csv(part.toFile());
        Files.move(part, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
