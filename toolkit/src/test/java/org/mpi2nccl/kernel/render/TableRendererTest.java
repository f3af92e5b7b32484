package org.mpi2nccl.kernel.render;

import org.junit.jupiter.api.Test;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.numbers.NumberColumnFormatter;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;

class TableRendererTest {
    @Test
    void numbersRoundToThreeSignificantDigits() {
        assertEquals("0.412", Numbers.format(0.41185330750000004, 3));
        assertEquals("12346", Numbers.format(12345.6, 3), "whole digits are kept");
        assertEquals("2", Numbers.format(2.0, 3));
        assertEquals("-0.00123", Numbers.format(-0.0012345, 3));
        assertEquals("1.23e-07", Numbers.format(1.234e-7, 3));
    }

    @Test
    void decimalsAreRoundedAndNumbersRightAligned() {
        Table t = Table.create("timings", StringColumn.create("route", "mpj", "nccl"),
                DoubleColumn.create("time (ms)", 0.41185330750000004, 12.5));
        String html = TableRenderer.html(t, 20);
        assertTrue(html.contains("<td style=\"text-align:right\">0.412</td>"), html);
        assertFalse(html.contains("0.41185"), html);
        assertTrue(html.contains("<td style=\"text-align:left\">mpj</td>"), html);
        assertTrue(html.contains("<th style=\"text-align:right\">time (ms)</th>".replace("(ms)", "(ms)")), html);
        String text = TableRenderer.text(t, 20);
        assertTrue(text.contains(" 0.412"), text);
        assertTrue(text.contains("time (ms)"), "the unit stays in the header: " + text);
    }

    @Test
    void dollarSignsAreNotTypesetAsMath() {
        Table t = Table.create("faults",
                StringColumn.create("error", "Lesson06$Faulty failed: rank 1 threw in Lesson06$Faulty"));
        String html = TableRenderer.html(t, 20);
        assertTrue(html.startsWith("<div class=\"mpi2nccl-table tex2jax_ignore\">"), html);
        assertTrue(html.contains("Lesson06$Faulty failed"), html);
    }

    @Test
    void aColumnsOwnFormatIsKept() {
        DoubleColumn share = DoubleColumn.create("share", 0.41185, 0.5);
        share.setPrintFormatter(NumberColumnFormatter.percent(1));
        String html = TableRenderer.html(Table.create("t", share), 20);
        assertTrue(html.contains(">41.2%</td>"), html);
    }

    @Test
    void unitsInHeadersAreNeverCut() {
        Table t = Table.create("t", DoubleColumn.create("bus bandwidth (GB / s)", 1.0));
        String html = TableRenderer.html(t, 20);
        assertTrue(html.contains("bus bandwidth (GB\u00a0/\u00a0s)"), html);
    }

    /** 16 columns of long names and values: about 2,900 px drawn flat. */
    private static Table wide(int rows) {
        Table t = Table.create("wide", StringColumn.create("setting",
                IntStream.range(0, rows).mapToObj(i -> "config-" + i).toArray(String[]::new)));
        for (int c = 0; c < 16; c++) {
            int col = c;
            t.addColumns(DoubleColumn.create("measurement_" + c + " (ms)",
                    IntStream.range(0, rows).mapToDouble(i -> 123456.789 * (col + 1) + i).toArray()));
        }
        return t;
    }

    @Test
    void aWideTableWithFewRowsIsTurnedOnItsSide() {
        Table t = wide(2);
        List<TableLayout.Part> parts = TableLayout.layout(t, 2);
        assertEquals(1, parts.size());
        TableLayout.Part turned = parts.get(0);
        assertTrue(turned.px() <= TableLayout.MAX_WIDTH_PX, "fits: " + turned.px());
        assertEquals(List.of("setting", "config-0", "config-1"),
                turned.cols().stream().map(TableLayout.Col::header).toList());
        assertEquals("measurement_3 (ms)", turned.cols().get(0).cells().get(3));
        assertEquals("493827", turned.cols().get(1).cells().get(3));
        String html = TableRenderer.html(t, 20);
        assertEquals(1, count(html, "<table>"), html);
    }

    @Test
    void aWideTableWithManyRowsIsCutIntoPartsThatFit() {
        Table t = wide(20);
        List<TableLayout.Part> parts = TableLayout.layout(t, 20);
        assertTrue(parts.size() >= 2, "cut into parts: " + parts.size());
        int dataColumns = 0;
        for (TableLayout.Part p : parts) {
            assertTrue(p.px() <= TableLayout.MAX_WIDTH_PX, "a part fits: " + p.px());
            assertEquals("setting", p.cols().get(0).header(), "the label column leads every part");
            dataColumns += p.cols().size() - 1;
        }
        assertEquals(16, dataColumns, "every column is shown once");
        assertTrue(new TableLayout.Part(TableLayout.layout(t, 20).stream()
                .flatMap(p -> p.cols().stream()).toList()).px() > 2 * TableLayout.MAX_WIDTH_PX, "flat it would be twice too wide");
        assertEquals(parts.size(), count(TableRenderer.html(t, 20), "<table>"));
    }

    @Test
    void aSingleTextColumnWiderThanTheNotebookIsStillShown() {
        Table t = Table.create("log", StringColumn.create("line", "x".repeat(200)));
        List<TableLayout.Part> parts = TableLayout.layout(t, 1);
        assertEquals(1, parts.size());
        assertEquals(List.of("line"), parts.get(0).cols().stream().map(TableLayout.Col::header).toList());
        assertTrue(TableRenderer.html(t, 20).contains("x".repeat(200)));
    }

    @Test
    void aNarrowTableStaysAsItIs() {
        Table t = Table.create("n", IntColumn.create("i", 1, 2, 3), DoubleColumn.create("x", 0.5, 0.25, 0.125));
        List<TableLayout.Part> parts = TableLayout.layout(t, 3);
        assertEquals(1, parts.size());
        assertEquals(List.of("i", "x"), parts.get(0).cols().stream().map(TableLayout.Col::header).toList());
    }

    private static int count(String s, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(s);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
