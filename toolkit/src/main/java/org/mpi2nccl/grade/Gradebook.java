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
 * each verdict with its hint) for reading. A lesson with write-ups adds a row (CSV) or a column (HTML) per student
 * and write-up: how many words the student wrote and the instructor's mark from {@link Marks}, empty until marked;
 * the CSV then has the columns words and mark too. The student's text goes only into the HTML, escaped.
 */
final class Gradebook {
    private Gradebook() {
    }

    static void write(List<String> exercises, List<StudentResult> results, Path out) throws IOException {
        write(exercises, List.of(), results, Marks.empty(), out);
    }

    static void write(List<String> exercises, List<String> writeups, List<StudentResult> results, Marks marks, Path out)
            throws IOException {
        Files.createDirectories(out);
        StringColumn student = StringColumn.create("student");
        StringColumn exercise = StringColumn.create("exercise");
        StringColumn result = StringColumn.create("result");
        StringColumn detail = StringColumn.create("detail");
        DoubleColumn seconds = DoubleColumn.create("seconds");
        StringColumn note = StringColumn.create("run");
        StringColumn words = StringColumn.create("words");
        StringColumn mark = StringColumn.create("mark");
        for (StudentResult r : results) {
            double time = Math.round(r.time().toMillis() / 100.0) / 10.0;
            for (Verdict v : r.verdicts()) {
                student.append(spreadsheetSafe(r.student()));
                exercise.append(spreadsheetSafe(v.exercise()));
                result.append(v.passed() ? "pass" : "fail");
                detail.append(spreadsheetSafe(v.detail()));
                seconds.append(time);
                note.append(spreadsheetSafe(r.note()));
                words.append("");
                mark.append("");
            }
            for (Writeup.Answer a : r.writeups()) {
                String given = marks.mark(r.student(), a.writeup());
                student.append(spreadsheetSafe(r.student()));
                exercise.append(spreadsheetSafe(a.writeup()));
                result.append(a.words() == 0 ? "empty" : "written");
                detail.append(spreadsheetSafe(writeupDetail(a, given)));
                seconds.append(time);
                note.append(spreadsheetSafe(r.note()));
                words.append(Integer.toString(a.words()));
                mark.append(given);
            }
        }
        Table csv = Table.create("gradebook", student, exercise, result, detail, seconds, note);
        if (!writeups.isEmpty()) csv.addColumns(words, mark);   // a lesson without write-ups keeps its columns
        csv.write().csv(out.resolve("gradebook.csv").toFile());
        Files.writeString(out.resolve("gradebook.html"), html(exercises, writeups, results, marks), StandardCharsets.UTF_8);
    }

    /**
     * A cell a spreadsheet shows as text: one that starts with =, +, -, @, a tab or a carriage return gets a leading
     * apostrophe, or a spreadsheet would evaluate it as a formula. Student names come from submission file names and
     * details can carry what a submission threw, both hostile (CSV injection, as OWASP describes it).
     */
    static String spreadsheetSafe(String cell) {
        return !cell.isEmpty() && "=+-@\t\r".indexOf(cell.charAt(0)) >= 0 ? "'" + cell : cell;
    }

    private static String writeupDetail(Writeup.Answer a, String mark) {
        String said = a.note().isEmpty() ? "" : a.note() + "; ";
        return said + a.words() + " word" + (a.words() == 1 ? "" : "s") + "; "
                + (mark.isEmpty() ? "marked by hand: no mark yet" : "marked by hand: " + mark);
    }

    static String html(List<String> exercises, List<StudentResult> results) {
        return html(exercises, List.of(), results, Marks.empty());
    }

    static String html(List<String> exercises, List<String> writeups, List<StudentResult> results, Marks marks) {
        StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Gradebook</title>"
                + "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                + "padding:4px 8px;vertical-align:top;text-align:left}.pass{background:#e6f4ea}.fail{background:#fce8e6}"
                + ".empty{background:#fef7e0}small{color:#444;display:block;max-width:32em}"
                + "pre{white-space:pre-wrap;max-width:40em;font-size:smaller}</style></head><body>\n<h1>Gradebook</h1>\n");
        List<String> header = new ArrayList<>(List.of("student"));
        header.addAll(exercises);
        writeups.forEach(w -> header.add(w + " (write-up)"));
        header.addAll(List.of("passed", "time", "run"));
        HtmlTable table = new HtmlTable().header(header.toArray(String[]::new));
        for (StudentResult r : results) {
            List<HtmlTable.Cell> row = new ArrayList<>(List.of(HtmlTable.cell(r.student())));
            for (Verdict v : r.verdicts()) {
                // a mark, then the hint in a small block under it (the page's style sheet places it)
                row.add(HtmlTable.rawCell((v.passed() ? "&#10004; pass" : "&#10008; fail") + "<small>"
                        + Html.escape(v.detail()) + "</small>").cssClass(v.passed() ? "pass" : "fail"));
            }
            for (String w : writeups) row.add(writeupCell(r, w, marks.mark(r.student(), w)));
            row.add(HtmlTable.cell(r.passed() + "/" + r.verdicts().size()));
            row.add(HtmlTable.cell(String.format(Locale.ROOT, "%.1f s", r.time().toMillis() / 1000.0)));
            row.add(HtmlTable.cell(r.note()));
            table.row(row);
        }
        return sb.append(table.html()).append("\n</body></html>\n").toString();
    }

    /**
     * The word count and the mark, then the student's text folded away. The text is the student's own: it is
     * escaped like every other text of the page, so markup in it shows as the characters typed and never runs.
     */
    private static HtmlTable.Cell writeupCell(StudentResult r, String writeup, String mark) {
        Writeup.Answer a = r.writeups().stream().filter(x -> x.writeup().equals(writeup)).findFirst()
                .orElse(Writeup.Answer.missing(writeup, "not read"));
        String head = a.words() + " word" + (a.words() == 1 ? "" : "s") + " &middot; mark: "
                + (mark.isEmpty() ? "<i>to mark</i>" : Html.escape(mark));
        String body = a.text().isEmpty() ? "<small>" + Html.escape(a.note().isEmpty() ? "nothing written" : a.note()) + "</small>"
                : "<details><summary>text</summary><pre>" + Html.escape(a.text()) + "</pre></details>";
        return HtmlTable.rawCell(head + body).cssClass(a.words() == 0 ? "empty" : "");
    }
}
