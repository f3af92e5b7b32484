package org.mpi2nccl.notebook;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * A Jupyter notebook file (.ipynb) as JSON, kept whole: what this class does not know (metadata, attachments,
 * widgets) goes back out unchanged. It reads nbformat 4, and writes nbformat 4.5: every cell gets an id (the
 * one it has, or a new one) and the minor version is raised to 5, as nbformat's own upgrade does.
 */
public final class Notebook {
    // nulls kept: nbformat requires "execution_count": null on a code cell that has not run
    private static final Gson GSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().serializeNulls().create();

    private final JsonObject json;

    private Notebook(JsonObject json) {
        this.json = json;
    }

    /** Reads a notebook; a file that is not JSON, or not nbformat 4, gives one line saying so. */
    public static Notebook read(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        try {
            return parse(text, file.toString());
        } catch (JsonParseException | IllegalStateException e) {
            Throwable why = e.getCause() != null ? e.getCause() : e; // Gson wraps the parser's own message
            throw new IllegalArgumentException(file + " is not valid JSON: " + firstLine(why.getMessage()));
        }
    }

    /** A notebook from its JSON text; {@code where} names it in error messages. */
    public static Notebook parse(String text, String where) {
        JsonElement root = JsonParser.parseString(text);
        if (!root.isJsonObject() || !root.getAsJsonObject().has("cells")
                || !root.getAsJsonObject().get("cells").isJsonArray()) {
            throw new IllegalArgumentException(where + " is not a notebook: no \"cells\" list");
        }
        JsonObject nb = root.getAsJsonObject();
        int major = nb.has("nbformat") ? nb.get("nbformat").getAsInt() : -1;
        if (major != 4) {
            throw new IllegalArgumentException(where + " is nbformat " + major + ": only nbformat 4 notebooks can be"
                    + " run (open and save it in Jupyter to convert it)");
        }
        Notebook notebook = new Notebook(nb);
        notebook.upgradeTo45();
        return notebook;
    }

    /** Another notebook with the same content (for changing one without the other). */
    public Notebook copy() {
        return new Notebook(json.deepCopy());
    }

    /** nbformat 4.5: a unique id on every cell (letters, digits, - and _, 1 to 64 characters). */
    private void upgradeTo45() {
        Set<String> seen = new HashSet<>();
        for (JsonObject cell : cells()) {
            String id = cell.has("id") && cell.get("id").isJsonPrimitive() ? cell.get("id").getAsString() : "";
            if (!id.matches("[a-zA-Z0-9_-]{1,64}") || !seen.add(id)) {
                id = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
                seen.add(id);
                cell.addProperty("id", id);
            }
            if (!cell.has("metadata") || !cell.get("metadata").isJsonObject()) {
                cell.add("metadata", new JsonObject());
            }
        }
        if (!json.has("nbformat_minor") || json.get("nbformat_minor").getAsInt() < 5) {
            json.addProperty("nbformat_minor", 5);
        }
        if (!json.has("metadata") || !json.get("metadata").isJsonObject()) {
            json.add("metadata", new JsonObject());
        }
    }

    /** Every cell, in order (live: changes go into the notebook). */
    public List<JsonObject> cells() {
        List<JsonObject> cells = new ArrayList<>();
        for (JsonElement e : json.getAsJsonArray("cells")) {
            if (!e.isJsonObject()) {
                throw new IllegalArgumentException("a cell is not a JSON object: " + firstLine(e.toString()));
            }
            cells.add(e.getAsJsonObject());
        }
        return cells;
    }

    /** Replaces the cells (the grader assembles a notebook from two). */
    public void setCells(List<JsonObject> cells) {
        JsonArray array = new JsonArray();
        cells.forEach(array::add);
        json.add("cells", array);
    }

    public JsonObject metadata() {
        return json.getAsJsonObject("metadata");
    }

    public static boolean isCode(JsonObject cell) {
        return cell.has("cell_type") && "code".equals(cell.get("cell_type").getAsString());
    }

    /** A cell's source: nbformat allows a string or a list of lines. */
    public static String source(JsonObject cell) {
        JsonElement s = cell.get("source");
        if (s == null || s.isJsonNull()) {
            return "";
        }
        if (s.isJsonArray()) {
            StringBuilder sb = new StringBuilder();
            s.getAsJsonArray().forEach(line -> sb.append(line.getAsString()));
            return sb.toString();
        }
        return s.getAsString();
    }

    /** The cell's tags (metadata.tags). */
    public static List<String> tags(JsonObject cell) {
        List<String> tags = new ArrayList<>();
        JsonObject meta = cell.getAsJsonObject("metadata");
        if (meta != null && meta.has("tags") && meta.get("tags").isJsonArray()) {
            meta.getAsJsonArray("tags").forEach(t -> tags.add(t.getAsString()));
        }
        return tags;
    }

    /** The exercise's name (metadata.mpi2nccl.exercise), or null for a cell that is not an exercise. */
    public static String exercise(JsonObject cell) {
        JsonObject lesson = lessonMetadata(cell);
        JsonElement name = lesson == null ? null : lesson.get("exercise");
        return name == null || !name.isJsonPrimitive() ? null : name.getAsString();
    }

    /** The cell's {@code mpi2nccl} metadata (exercise name, grading rules), or null. */
    public static JsonObject lessonMetadata(JsonObject cell) {
        JsonObject meta = cell.getAsJsonObject("metadata");
        return meta == null || !meta.has("mpi2nccl") || !meta.get("mpi2nccl").isJsonObject() ? null
                : meta.getAsJsonObject("mpi2nccl");
    }

    /** The cell with id {@code id}, or null. */
    public JsonObject cell(String id) {
        return cells().stream().filter(c -> id.equals(id(c))).findFirst().orElse(null);
    }

    public static String id(JsonObject cell) {
        return cell.get("id").getAsString();
    }

    /** Writes the notebook as Jupyter does: indented JSON, a newline at the end. */
    public void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        // written next to the target first, so a reader (or a killed run) never sees half a notebook
        // (named here rather than by createTempFile, whose owner-only permissions would stick to the notebook)
        Path tmp = parent.resolve("." + file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            Files.writeString(tmp, GSON.toJson(json) + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);   // no half notebook left beside the target
            throw new IOException("cannot write the notebook " + file + " (" + e.getMessage() + ")"
                    + org.mpi2nccl.files.PrivateTemp.spaceHint(parent), e);
        }
    }

    public String toJson() {
        return GSON.toJson(json);
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
