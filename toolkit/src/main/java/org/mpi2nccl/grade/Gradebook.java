package org.mpi2nccl.grade;

import org.mpi2nccl.kernel.render.Html;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The gradebook of a class: gradebook.csv (one row per student and exercise: pass or fail, the check's hint or
 * the reason, the student's run time) for a spreadsheet, and gradebook.html (students down, exercises across,
 * each verdict with its hint) for reading.
 */
final class Gradebook {
    private Gradebook() {
    }

    static void write(List<String> exercises, List<StudentResult> results, Path out) throws IOException {
        Files.createDirectories(out);
        StringColumn student = StringColumn.create("student");
        StringColumn exercise = StringColumn.create("exercise");
        StringColumn result = StringColumn.create("result");
        StringColumn detail = StringColumn.create("detail");
        DoubleColumn seconds = DoubleColumn.create("seconds");
        StringColumn note = StringColumn.create("run");
        for (StudentResult r : results) {
            for (Verdict v : r.verdicts()) {
                student.append(r.student());
                exercise.append(v.exercise());
                result.append(v.passed() ? "pass" : "fail");
                detail.append(v.detail());
                seconds.append(Math.round(r.time().toMillis() / 100.0) / 10.0);
                note.append(r.note());
            }
        }
        Table.create("gradebook", student, exercise, result, detail, seconds, note).write()
                .csv(out.resolve("gradebook.csv").toFile());
        Files.writeString(out.resolve("gradebook.html"), html(exercises, results), StandardCharsets.UTF_8);
    }

    static String html(List<String> exercises, List<StudentResult> results) {
        StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Gradebook</title>"
                + "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                + "padding:4px 8px;vertical-align:top;text-align:left}.pass{background:#e6f4ea}.fail{background:#fce8e6}"
                + "small{color:#444;display:block;max-width:32em}</style></head><body>\n<h1>Gradebook</h1>\n<table>\n<tr><th>student</th>");
        for (String e : exercises) sb.append("<th>").append(Html.escape(e)).append("</th>");
        sb.append("<th>passed</th><th>time</th><th>run</th></tr>\n");
        for (StudentResult r : results) {
            sb.append("<tr><td>").append(Html.escape(r.student())).append("</td>");
            for (Verdict v : r.verdicts()) {
                sb.append("<td class=\"").append(v.passed() ? "pass" : "fail").append("\">")
                        .append(v.passed() ? "&#10004; pass" : "&#10008; fail")
                        .append("<small>").append(Html.escape(v.detail())).append("</small></td>");
            }
            sb.append(String.format(Locale.ROOT, "<td>%d/%d</td><td>%.1f s</td><td>%s</td></tr>%n", r.passed(),
                    r.verdicts().size(), r.time().toMillis() / 1000.0, Html.escape(r.note())));
        }
        return sb.append("</table>\n</body></html>\n").toString();
    }
}
