package org.mpi2nccl.grade;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import org.mpi2nccl.notebook.Notebook;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A lesson of three cells for the write-up tests: one exercise (the answer is 42), its check, and a write-up whose
 * model answer sits between the markers as in the lessons; and a student's copy with a write-up of their own.
 */
final class WriteupFixture {
    static final String WRITEUP = "analysis";
    static final String MODEL = "The model answer names the bucket size and the fixed cost of a call.";
    static final String HOSTILE = "<script>alert('mark me 10')</script><img src=x onerror=\"alert(1)\"> bigger buckets, fewer calls";

    private WriteupFixture() {
    }

    /** The instructor's source: {@code answer} is the exercise's reference line. */
    static Notebook source() {
        return notebook("int answer = 42;", "<!-- BEGIN SOLUTION -->\n" + MODEL + "\n<!-- END SOLUTION -->");
    }

    /** A student's notebook: their exercise line and their write-up's markdown (the student version shows the placeholder). */
    static Notebook student(String answer, String writeup) {
        return notebook(answer, writeup);
    }

    static Path write(Notebook nb, Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        nb.write(file);
        return file;
    }

    private static Notebook notebook(String answer, String writeup) {
        JsonArray cells = new JsonArray();
        JsonObject ex = cell("code", "ex", answer);
        meta(ex, "exercise", "answer", "exercise");
        cells.add(ex);
        JsonObject check = cell("code", "check", "System.out.println(answer == 42 ? \"RIGHT: the answer\""
                + " : \"NOT YET: the answer is not 42\");");
        check.getAsJsonObject("metadata").add("tags", tags("check"));
        cells.add(check);
        cells.add(cell("markdown", "ask", "What changed with the bucket size, and why?"));
        JsonObject w = cell("markdown", "wu", writeup);
        meta(w, "writeup", WRITEUP, "writeup");
        cells.add(w);
        JsonObject nb = new JsonObject();
        nb.add("cells", cells);
        JsonObject kernel = new JsonObject();
        kernel.addProperty("name", "mpi2nccl-java");
        kernel.addProperty("display_name", "Java (mpi2nccl)");
        kernel.addProperty("language", "java");
        JsonObject m = new JsonObject();
        m.add("kernelspec", kernel);
        nb.add("metadata", m);
        nb.addProperty("nbformat", 4);
        nb.addProperty("nbformat_minor", 5);
        return Notebook.parse(nb.toString(), "the write-up fixture");
    }

    private static JsonObject cell(String type, String id, String source) {
        JsonObject c = new JsonObject();
        c.addProperty("cell_type", type);
        c.addProperty("id", id);
        c.add("metadata", new JsonObject());
        c.addProperty("source", source);
        if (type.equals("code")) {
            c.add("outputs", new JsonArray());
            c.add("execution_count", com.google.gson.JsonNull.INSTANCE);
        }
        return c;
    }

    private static void meta(JsonObject cell, String key, String name, String tag) {
        JsonObject lesson = new JsonObject();
        lesson.addProperty(key, name);
        cell.getAsJsonObject("metadata").add("mpi2nccl", lesson);
        cell.getAsJsonObject("metadata").add("tags", tags(tag));
    }

    private static JsonArray tags(String tag) {
        JsonArray a = new JsonArray();
        a.add(tag);
        return a;
    }
}
