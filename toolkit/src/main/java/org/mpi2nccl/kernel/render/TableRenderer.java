package org.mpi2nccl.kernel.render;

import io.github.spencerpark.jupyter.kernel.display.RenderContext;
import io.github.spencerpark.jupyter.kernel.display.Renderer;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Tablesaw tables as an HTML table. Long tables are cut after {@link #rowLimit()} rows with a note that says how
 * many rows there are, so that a 60,000-row data set does not flood the notebook. The limit is a render parameter
 * too: {@code display(table)} uses the default, the kernel's renderer accepts {@code {"rows": 50}}.
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
        StringBuilder sb = new StringBuilder("<div class=\"mpi2nccl-table\">");
        if (table.name() != null && !table.name().isEmpty()) {
            sb.append("<b>").append(Html.escape(table.name())).append("</b>");
        }
        sb.append("<table><thead><tr>");
        for (Column<?> c : table.columns()) {
            sb.append("<th>").append(Html.escape(c.name())).append("</th>");
        }
        sb.append("</tr></thead><tbody>");
        int shown = Math.min(limit, table.rowCount());
        for (int r = 0; r < shown; r++) {
            sb.append("<tr>");
            for (Column<?> c : table.columns()) {
                sb.append("<td>").append(Html.escape(c.getString(r))).append("</td>");
            }
            sb.append("</tr>");
        }
        sb.append("</tbody></table>");
        if (shown < table.rowCount()) {
            sb.append("<p><i>").append(cutNote(shown, table.rowCount())).append("</i></p>");
        }
        return sb.append("</div>").toString();
    }

    public static String text(Table table, int limit) {
        String printed = table.rowCount() > limit ? table.first(limit).print() : table.print();
        return table.rowCount() > limit ? printed + "\n" + cutNote(limit, table.rowCount()) : printed;
    }

    static String cutNote(int shown, int total) {
        return String.format("showing the first %,d of %,d rows (TableRenderer.setRowLimit(n) shows more)",
                shown, total);
    }
}
