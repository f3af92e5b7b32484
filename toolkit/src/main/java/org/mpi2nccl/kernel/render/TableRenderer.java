package org.mpi2nccl.kernel.render;

import io.github.spencerpark.jupyter.kernel.display.RenderContext;
import io.github.spencerpark.jupyter.kernel.display.Renderer;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.mpi2nccl.html.Html;
import org.mpi2nccl.html.HtmlTable;
import tech.tablesaw.api.Table;

import java.util.List;

/**
 * Tablesaw tables as an HTML table, readable at a glance: decimals to three significant digits, numbers
 * right-aligned, and never wider than the notebook ({@link TableLayout}: a wide table is turned on its side or
 * cut into parts). Long tables are cut after {@link #rowLimit()} rows with a note that says how many rows there
 * are, so that a 60,000-row data set does not flood the notebook. The limit is a render parameter too:
 * {@code display(table)} uses the default, the kernel's renderer accepts {@code {"rows": 50}}.
 *
 * <p>The table is marked {@code tex2jax_ignore}: the notebook typesets the text between two dollar signs of an
 * HTML output as math, and a cell that names a nested class ({@code Lesson06$Faulty}) would turn into a line of
 * italic formula that neither wraps nor reads.
 */
public final class TableRenderer {
    private static volatile int rowLimit = 20;

    private TableRenderer() {
    }

    /** How many rows a table shows before it is cut. */
    public static int rowLimit() {
        return rowLimit;
    }

    public static void setRowLimit(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("the row limit must be at least 1, not " + rows);
        }
        rowLimit = rows;
    }

    public static void register(Renderer renderer) {
        renderer.createRegistration(Table.class)
                .preferring(MIMEType.TEXT_HTML)
                .supporting(MIMEType.TEXT_PLAIN)
                .register(TableRenderer::render);
    }

    static void render(Table table, RenderContext ctx) {
        int limit = ctx.getParameterAsInt("rows", rowLimit);
        ctx.renderIfRequested(MIMEType.TEXT_HTML, () -> html(table, limit));
        ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> text(table, limit));
    }

    public static String html(Table table, int limit) {
        StringBuilder sb = new StringBuilder("<div class=\"mpi2nccl-table tex2jax_ignore\">");
        if (table.name() != null && !table.name().isEmpty()) {
            sb.append("<b>").append(Html.escape(table.name())).append("</b>");
        }
        int shown = Math.min(limit, table.rowCount());
        for (TableLayout.Part part : TableLayout.layout(table, shown)) {
            List<TableLayout.Col> cols = part.cols();
            HtmlTable t = new HtmlTable().header(cols.stream()
                    .map(c -> HtmlTable.cell(TableLayout.keepUnits(c.header())).align(align(c))).toList());
            int rows = cols.isEmpty() ? 0 : cols.get(0).cells().size();
            for (int r = 0; r < rows; r++) {
                int row = r;
                t.row(cols.stream().map(c -> HtmlTable.cell(c.cells().get(row)).align(align(c))).toList());
            }
            sb.append(t.html());
        }
        if (shown < table.rowCount()) {
            sb.append("<p><i>").append(cutNote(shown, table.rowCount())).append("</i></p>");
        }
        return sb.append("</div>").toString();
    }

    private static HtmlTable.Align align(TableLayout.Col c) {
        return c.numeric() ? HtmlTable.Align.RIGHT : HtmlTable.Align.LEFT;
    }

    /** The same layout as text: columns padded to their widest cell, numbers to the right. */
    public static String text(Table table, int limit) {
        int shown = Math.min(limit, table.rowCount());
        StringBuilder sb = new StringBuilder();
        if (table.name() != null && !table.name().isEmpty()) {
            sb.append(table.name()).append('\n');
        }
        List<TableLayout.Part> parts = TableLayout.layout(table, shown);
        for (int p = 0; p < parts.size(); p++) {
            if (p > 0) {
                sb.append('\n');
            }
            List<TableLayout.Col> cols = parts.get(p).cols();
            int[] width = cols.stream().mapToInt(c -> c.cells().stream().mapToInt(String::length)
                    .reduce(c.header().length(), Math::max)).toArray();
            appendRow(sb, cols, width, -1);
            for (int r = 0; !cols.isEmpty() && r < cols.get(0).cells().size(); r++) {
                appendRow(sb, cols, width, r);
            }
        }
        String printed = sb.toString().stripTrailing();
        return shown < table.rowCount() ? printed + "\n" + cutNote(shown, table.rowCount()) : printed;
    }

    private static void appendRow(StringBuilder sb, List<TableLayout.Col> cols, int[] width, int row) {
        for (int i = 0; i < cols.size(); i++) {
            TableLayout.Col c = cols.get(i);
            String v = row < 0 ? c.header() : c.cells().get(row);
            String pad = " ".repeat(width[i] - v.length());
            sb.append(i == 0 ? "" : "  ").append(c.numeric() ? pad + v : v + pad);
        }
        sb.append('\n');
    }

    static String cutNote(int shown, int total) {
        return String.format("showing the first %,d of %,d rows (TableRenderer.setRowLimit(n) shows more)",
                shown, total);
    }
}
