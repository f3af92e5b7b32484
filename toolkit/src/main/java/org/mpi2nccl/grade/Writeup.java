package org.mpi2nccl.grade;

import com.google.gson.JsonObject;
import org.mpi2nccl.notebook.Notebook;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A write-up of a lesson: a markdown cell the student fills with a short analysis (metadata
 * {@code mpi2nccl.writeup} = its name, tag {@code writeup}), marked by hand. The grader never runs it: it counts
 * the student's words for the gradebook ({@link Answer}), and the instructor's mark comes from a file ({@link Marks}).
 */
record Writeup(String name, String cellId) {
    /** What the student version shows in place of the answer (scripts/lessons/versions.py): not the student's words. */
    static final String PLACEHOLDER = "*Your answer here.*";

    /** A word holds a letter or a digit: markdown's own marks ("*", "---", "|") are not words. */
    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}]");

    /** One student's answer to a write-up: its text (data only, shown escaped) and its word count. */
    record Answer(String writeup, String text, int words, String note) {
        static Answer of(String writeup, String text) {
            return new Answer(writeup, text, Writeup.words(text), "");
        }

        static Answer missing(String writeup, String why) {
            return new Answer(writeup, "", 0, why);
        }
    }

    /** The write-ups of a lesson source, in order; names must be unique. */
    static List<Writeup> of(Notebook source) {
        List<Writeup> found = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (JsonObject c : source.cells()) {
            String name = nameOf(c);
            if (name == null) continue;
            if (!names.add(name)) {
                throw new IllegalArgumentException("write-up '" + name + "' is named twice in the source");
            }
            found.add(new Writeup(name, Notebook.id(c)));
        }
        return found;
    }

    /** The write-up's name of a markdown cell (metadata mpi2nccl.writeup), or null. */
    static String nameOf(JsonObject cell) {
        if (Notebook.isCode(cell)) return null;
        JsonObject lesson = Notebook.lessonMetadata(cell);
        var name = lesson == null ? null : lesson.get("writeup");
        return name == null || !name.isJsonPrimitive() ? null : name.getAsString();
    }

    /**
     * The student's answer in their notebook: the markdown cell of the same write-up name, or else the cell with the
     * source's id (a student who copied the cell without its metadata); the student version's placeholder is no answer.
     */
    Answer answerIn(Notebook student) {
        JsonObject byId = null;
        for (JsonObject c : student.cells()) {
            if (Notebook.isCode(c)) continue;      // a cell turned into code is not a write-up: it would be run
            if (name.equals(nameOf(c))) return Answer.of(name, textOf(c));
            if (byId == null && c.has("id") && cellId.equals(Notebook.id(c))) byId = c;
        }
        return byId != null ? Answer.of(name, textOf(byId))
                : Answer.missing(name, "the write-up cell was deleted from the submission");
    }

    private static String textOf(JsonObject cell) {
        return Notebook.source(cell).replace(PLACEHOLDER, "").strip();
    }

    /** Words in a text: runs between white space that hold a letter or a digit. */
    static int words(String text) {
        int n = 0;
        for (String token : text.strip().split("\\s+")) {
            if (WORD.matcher(token).find()) n++;
        }
        return n;
    }
}
