package org.mpi2nccl.grade;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import org.mpi2nccl.notebook.Notebook;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One exercise of one student: passed or not, and the sentence the gradebook shows: the check's own hint (what
 * came out, what was expected), or why there is no verdict (the answer ran past its limit, the check raised, the
 * run ended before the check).
 */
record Verdict(String exercise, boolean passed, String detail) {
    private static final Pattern VERDICT = Pattern.compile("(?m)^(\\[rank \\d+\\] )?(RIGHT|NOT YET): ");
    private static final int MAX_DETAIL = 400;

    static Verdict failed(String exercise, String why) {
        return new Verdict(exercise, false, why);
    }

    /** The verdict read from a student's executed notebook; {@code ended}: why the run stopped early, or null. */
    static Verdict read(Exercise ex, Notebook executed, String ended) {
        Map<String, JsonObject> byId = new HashMap<>();
        executed.cells().forEach(c -> byId.put(Notebook.id(c), c));
        JsonObject answer = byId.get(ex.cellId());
        String answerError = answer == null ? null : error(answer);
        int right = 0;
        for (String checkId : ex.checkIds()) {
            JsonObject check = byId.get(checkId);
            if (check == null || check.get("execution_count") == null || check.get("execution_count").isJsonNull()) {
                return failed(ex.name(), "the check did not run" + (ended == null ? "" : ": " + ended)
                        + (answerError == null ? "" : " (the answer: " + answerError + ")"));
            }
            String error = error(check);
            if (error != null) {
                return failed(ex.name(), "the check raised " + error
                        + (answerError == null ? "" : " (the answer: " + answerError + ")"));
            }
            String text = text(check);
            Matcher m = VERDICT.matcher(text);
            int verdicts = 0;
            while (m.find()) {
                verdicts++;
                if (m.group(2).equals("NOT YET")) {
                    String hint = hint(text, m.start());
                    return failed(ex.name(), answerError == null ? hint : hint + " (the answer: " + answerError + ")");
                }
            }
            if (verdicts == 0) {
                return failed(ex.name(), "the check printed no verdict");
            }
            right += verdicts;
        }
        return new Verdict(ex.name(), true, "RIGHT (" + right + " verdict" + (right == 1 ? "" : "s") + ")");
    }

    /** "ENAME: EVALUE" of the cell's last error output (a time limit comes after the interrupted cell's), or null. */
    private static String error(JsonObject cell) {
        String last = null;
        for (JsonElement o : cell.getAsJsonArray("outputs")) {
            JsonObject out = o.getAsJsonObject();
            if ("error".equals(out.get("output_type").getAsString())) {
                last = shorten(out.get("ename").getAsString() + ": " + out.get("evalue").getAsString());
            }
        }
        return last;
    }

    /** Everything the cell printed or showed as text. */
    static String outputText(JsonObject cell) {
        return text(cell);
    }

    private static String text(JsonObject cell) {
        StringBuilder sb = new StringBuilder();
        for (JsonElement o : cell.getAsJsonArray("outputs")) {
            JsonObject out = o.getAsJsonObject();
            if (out.has("text")) sb.append(joined(out.get("text"))).append('\n');
            if (out.has("data") && out.getAsJsonObject("data").has("text/plain")) {
                sb.append(joined(out.getAsJsonObject("data").get("text/plain"))).append('\n');
            }
        }
        return sb.toString();
    }

    /** The NOT YET message that starts at {@code at}: its lines up to the next rank's, on one line. */
    private static String hint(String text, int at) {
        String[] lines = text.substring(at).split("\n");
        StringBuilder sb = new StringBuilder(lines[0].replaceFirst("^\\[rank \\d+\\] ", ""));
        for (int i = 1; i < lines.length && !lines[i].startsWith("[rank ") && !lines[i].isBlank(); i++) {
            sb.append(' ').append(lines[i].strip());
        }
        return shorten(sb.toString());
    }

    private static String joined(JsonElement text) {
        if (text.isJsonArray()) {
            StringBuilder sb = new StringBuilder();
            text.getAsJsonArray().forEach(l -> sb.append(l.getAsString()));
            return sb.toString();
        }
        return text.getAsString();
    }

    private static String shorten(String s) {
        String one = s.strip().replaceAll("\\s+", " ");
        return one.length() <= MAX_DETAIL ? one : one.substring(0, MAX_DETAIL - 3) + "...";
    }
}
