package org.mpi2nccl.notebook;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.messages.publish.PublishClearOutput;
import io.github.spencerpark.jupyter.messages.publish.PublishDisplayData;
import io.github.spencerpark.jupyter.messages.publish.PublishError;
import io.github.spencerpark.jupyter.messages.publish.PublishExecuteResult;
import io.github.spencerpark.jupyter.messages.publish.PublishStream;
import io.github.spencerpark.jupyter.messages.publish.PublishUpdateDisplayData;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The kernel's messages turned into a cell's outputs, as nbclient and Jupyter's front ends do it: streams of one
 * name that follow each other are one output; {@code display_data}, {@code execute_result} and {@code error}
 * are outputs of their own; {@code update_display_data} rewrites, in place, every output shown earlier under the
 * same display id (in this cell or an earlier one); {@code clear_output} empties the cell (with {@code wait}:
 * just before the next output).
 */
final class CellOutputs {
    private static final Gson GSON = new Gson();

    /** Outputs shown under a display id, in every cell of the notebook so far. */
    private final Map<String, List<JsonObject>> byDisplayId = new HashMap<>();
    private List<JsonObject> outputs = new ArrayList<>();
    private boolean clearBeforeNext;
    private PublishError error;

    /** Starts a new cell's outputs. */
    synchronized void startCell() {
        outputs = new ArrayList<>();
        clearBeforeNext = false;
        error = null;
    }

    /** The current cell's outputs, as nbformat JSON. */
    synchronized JsonArray outputs() {
        JsonArray array = new JsonArray();
        outputs.forEach(o -> array.add(o.deepCopy()));
        return array;
    }

    /** The error the kernel published for this cell, or null. */
    synchronized PublishError error() {
        return error;
    }

    /** One message the kernel published on its IOPub channel (its content object). */
    synchronized void publish(Object content) {
        if (content instanceof PublishStream) {
            PublishStream s = (PublishStream) content;
            stream(s.getStreamType() == PublishStream.StreamType.ERR ? "stderr" : "stdout", s.getText());
        } else if (content instanceof PublishExecuteResult) {
            PublishExecuteResult r = (PublishExecuteResult) content;
            JsonObject o = bundle("execute_result", r);
            o.addProperty("execution_count", r.getCount());
            add(o, r);
        } else if (content instanceof PublishUpdateDisplayData) {
            DisplayData d = (DisplayData) content;
            for (JsonObject shown : byDisplayId.getOrDefault(d.getDisplayId(), List.of())) {
                JsonObject fresh = bundle("display_data", d);
                shown.add("data", fresh.get("data"));
                shown.add("metadata", fresh.get("metadata"));
            }
        } else if (content instanceof PublishDisplayData) {
            add(bundle("display_data", (DisplayData) content), (DisplayData) content);
        } else if (content instanceof PublishError) {
            PublishError e = (PublishError) content;
            error = e;
            JsonObject o = new JsonObject();
            o.addProperty("output_type", "error");
            o.addProperty("ename", e.getErrorName());
            o.addProperty("evalue", e.getErrorMessage());
            JsonArray tb = new JsonArray();
            e.getStacktrace().forEach(tb::add);
            o.add("traceback", tb);
            add(o, null);
        } else if (content instanceof PublishClearOutput) {
            if (((PublishClearOutput) content).shouldWait()) {
                clearBeforeNext = true;
            } else {
                outputs.clear();
            }
        }
        // status, execute_input and replies carry no output
    }

    /** An error of the executor's own (a time limit), shown as the kernel shows errors. */
    synchronized void addError(String name, String value) {
        publish(new PublishError(name, value, List.of(name + ": " + value)));
    }

    private void stream(String name, String text) {
        if (text.isEmpty()) return;
        if (clearBeforeNext) {
            outputs.clear();
            clearBeforeNext = false;
        }
        JsonObject last = outputs.isEmpty() ? null : outputs.get(outputs.size() - 1);
        if (last != null && "stream".equals(last.get("output_type").getAsString())
                && name.equals(last.get("name").getAsString())) {
            last.add("text", lines(joined(last.get("text")) + text));
            return;
        }
        JsonObject o = new JsonObject();
        o.addProperty("output_type", "stream");
        o.addProperty("name", name);
        o.add("text", lines(text));
        outputs.add(o);
    }

    private void add(JsonObject output, DisplayData source) {
        if (clearBeforeNext) {
            outputs.clear();
            clearBeforeNext = false;
        }
        outputs.add(output);
        if (source != null && source.hasDisplayId()) {
            byDisplayId.computeIfAbsent(source.getDisplayId(), k -> new ArrayList<>()).add(output);
        }
    }

    /** A display bundle: nbformat keeps data and metadata, not the transient display id. */
    private static JsonObject bundle(String type, DisplayData d) {
        JsonObject tree = GSON.toJsonTree(d, DisplayData.class).getAsJsonObject();
        JsonObject data = new JsonObject();
        JsonObject raw = tree.has("data") ? tree.getAsJsonObject("data") : new JsonObject();
        for (Map.Entry<String, JsonElement> e : raw.entrySet()) {
            boolean text = e.getKey().startsWith("text/") || e.getKey().equals("image/svg+xml")
                    || e.getKey().equals("application/javascript");
            data.add(e.getKey(), text && e.getValue().isJsonPrimitive() ? lines(e.getValue().getAsString()) : e.getValue());
        }
        JsonObject o = new JsonObject();
        o.addProperty("output_type", type);
        o.add("data", data);
        JsonElement meta = tree.get("metadata");
        o.add("metadata", meta != null && meta.isJsonObject() ? meta : new JsonObject());
        return o;
    }

    /** nbformat's multi-line string: a list of lines, each with its newline but the last. */
    static JsonArray lines(String text) {
        JsonArray a = new JsonArray();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                a.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < text.length()) a.add(text.substring(start));
        return a;
    }

    static String joined(JsonElement text) {
        if (text == null || text.isJsonNull()) return "";
        if (!text.isJsonArray()) return text.getAsString();
        StringBuilder sb = new StringBuilder();
        text.getAsJsonArray().forEach(l -> sb.append(l.getAsString()));
        return sb.toString();
    }
}
