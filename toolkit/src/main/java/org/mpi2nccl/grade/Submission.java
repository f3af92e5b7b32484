package org.mpi2nccl.grade;

import com.google.gson.JsonObject;
import org.mpi2nccl.notebook.Notebook;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What is run for one student: the instructor's source, cell for cell, with each exercise cell replaced by the
 * student's answer. Everything else (set-up, explanations, the check cells) comes from the source, so a student
 * who edited or deleted a check cell changes nothing. The student's cell is found by its exercise name, or else by
 * its cell id; an exercise whose cell the student deleted is left out and fails with that reason. A write-up cell
 * ({@link Writeup}) runs as the student version's placeholder: neither the model answer nor the student's text.
 */
final class Submission {
    final Notebook assembled;
    /** Exercise name to why it fails before anything runs (its cell is missing); empty for most students. */
    final Map<String, String> missing = new LinkedHashMap<>();
    /**
     * Exercise name to a note for the gradebook when the submission's copy of one of its check cells differs from
     * the source's (compared by checksum, as nbgrader does): the original ran, but the instructor should know.
     */
    final Map<String, String> editedChecks = new LinkedHashMap<>();

    private Submission(Notebook assembled) {
        this.assembled = assembled;
    }

    static Submission assemble(Notebook source, List<Exercise> exercises, Notebook student) {
        Map<String, JsonObject> byName = new LinkedHashMap<>();
        Map<String, JsonObject> byId = new LinkedHashMap<>();
        for (JsonObject c : student.cells()) {
            if (!Notebook.isCode(c)) continue;
            String name = Notebook.exercise(c);
            if (name != null) byName.putIfAbsent(name, c);
            byId.put(Notebook.id(c), c);
        }
        Notebook run = source.copy();
        Submission s = new Submission(run);
        List<JsonObject> cells = new ArrayList<>();
        for (JsonObject c : run.cells()) {
            Exercise ex = exercises.stream().filter(e -> e.cellId().equals(Notebook.id(c))).findFirst().orElse(null);
            if (Writeup.nameOf(c) != null) {
                // the source's model write-up stays out of the student's run, as its reference code does; the
                // student's own write-up is read as text by the grader and never joins the run either
                JsonObject blank = c.deepCopy();
                blank.addProperty("source", Writeup.PLACEHOLDER);
                cells.add(blank);
                continue;
            }
            if (ex == null) {
                cells.add(c);
                continue;
            }
            JsonObject answer = byName.containsKey(ex.name()) ? byName.get(ex.name()) : byId.get(ex.cellId());
            if (answer == null) {
                s.missing.put(ex.name(), "the exercise cell was deleted from the submission");
                continue;
            }
            JsonObject mine = c.deepCopy();
            mine.add("source", answer.get("source") == null ? new com.google.gson.JsonPrimitive("") : answer.get("source"));
            cells.add(mine);
        }
        run.setCells(cells);
        for (Exercise ex : exercises) {
            for (String id : ex.checkIds()) {
                JsonObject theirs = byId.get(id);
                JsonObject ours = source.cell(id);
                if (ours != null && (theirs == null || !checksum(theirs).equals(checksum(ours)))) {
                    s.editedChecks.put(ex.name(), "the submission's check cell " + id + (theirs == null ? " was deleted"
                            : " was edited (checksum " + checksum(theirs).substring(0, 12) + ", the source's "
                            + checksum(ours).substring(0, 12) + ")") + ": the source's check ran");
                }
            }
        }
        return s;
    }

    /** SHA-256 of a cell's source, as text whatever its JSON form (a string or a list of lines). */
    static String checksum(JsonObject cell) {
        com.google.gson.JsonElement src = cell.get("source");
        String text;
        if (src == null || src.isJsonNull()) {
            text = "";
        } else if (src.isJsonArray()) {
            StringBuilder b = new StringBuilder();
            src.getAsJsonArray().forEach(e -> b.append(e.getAsString()));
            text = b.toString();
        } else {
            text = src.getAsString();
        }
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(d);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }
}
