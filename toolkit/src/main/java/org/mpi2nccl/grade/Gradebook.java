package org.mpi2nccl.grade;

import org.mpi2nccl.html.Html;
import org.mpi2nccl.html.HtmlTable;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
                + "small{color:#444;display:block;max-width:32em}</style></head><body>\n<h1>Gradebook</h1>\n");
        List<String> header = new ArrayList<>(List.of("student"));
        header.addAll(exercises);
        header.addAll(List.of("passed", "time", "run"));
        HtmlTable table = new HtmlTable().header(header.toArray(String[]::new));
        for (StudentResult r : results) {
            List<HtmlTable.Cell> row = new ArrayList<>(List.of(HtmlTable.cell(r.student())));
            for (Verdict v : r.verdicts()) {
                // a mark, then the hint in a small block under it (the page's style sheet places it)
                row.add(HtmlTable.rawCell((v.passed() ? "&#10004; pass" : "&#10008; fail") + "<small>"
                        + Html.escape(v.detail()) + "</small>").cssClass(v.passed() ? "pass" : "fail"));
            }
            row.add(HtmlTable.cell(r.passed() + "/" + r.verdicts().size()));
            row.add(HtmlTable.cell(String.format(Locale.ROOT, "%.1f s", r.time().toMillis() / 1000.0)));
            row.add(HtmlTable.cell(r.note()));
            table.row(row);
        }
        return sb.append(table.html()).append("\n</body></html>\n").toString();
    }
}
