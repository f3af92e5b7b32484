package org.mpi2nccl.html;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An HTML table: a header row and rows of cells. Every cell's text is escaped here, so a caller never writes
 * markup or escapes by hand; a cell that must carry markup (an image, another output's HTML) is made with
 * {@link #rawCell}, by name, so that each such place can be found and checked.
 *
 * <p>Each row ends a line, so a table written into a file reads row by row; the browser ignores the line breaks.
 */
public final class HtmlTable {
    public enum Align {
        LEFT, RIGHT
    }

    private final List<Cell> header = new ArrayList<>();
    private final List<List<Cell>> rows = new ArrayList<>();
    private String cssClass;
    private String style;

    /** The table element's class (a stylesheet of the page or the notebook picks it up). */
    public HtmlTable cssClass(String name) {
        this.cssClass = name;
        return this;
    }

    /** The table element's inline style, for a look the notebook's stylesheet does not give. */
    public HtmlTable style(String css) {
        this.style = css;
        return this;
    }

    public HtmlTable header(String... texts) {
        for (String t : texts) header.add(cell(t));
        return this;
    }

    public HtmlTable header(List<Cell> cells) {
        header.addAll(cells);
        return this;
    }

    public HtmlTable row(Cell... cells) {
        return row(List.of(cells));
    }

    public HtmlTable row(List<Cell> cells) {
        rows.add(List.copyOf(cells));
        return this;
    }

    public int rowCount() {
        return rows.size();
    }

    /** A cell showing this text as it is (escaped; null shows as nothing). */
    public static Cell cell(String text) {
        return new Cell(Html.escape(text), null, false, null, null, false);
    }

    /** A cell holding markup the caller built or received, put into the table unescaped. */
    public static Cell rawCell(String html) {
        return new Cell(html == null ? "" : html, null, false, null, null, false);
    }

    public String html() {
        StringBuilder sb = new StringBuilder("<table").append(attribute("class", cssClass))
                .append(attribute("style", style)).append('>');
        if (!header.isEmpty()) {
            sb.append("<thead>");
            appendRow(sb, header, "th");
            sb.append("</thead>");
        }
        sb.append("<tbody>");
        for (List<Cell> row : rows) appendRow(sb, row, "td");
        return sb.append("</tbody></table>").toString();
    }

    @Override
    public String toString() {
        return html();
    }

    private static void appendRow(StringBuilder sb, List<Cell> cells, String tag) {
        sb.append("<tr>");
        for (Cell c : cells) {
            sb.append('<').append(tag).append(attribute("class", c.cssClass)).append(attribute("style", c.style()))
                    .append('>').append(c.bold ? "<b>" + c.content + "</b>" : c.content)
                    .append("</").append(tag).append('>');
        }
        sb.append("</tr>\n");
    }

    private static String attribute(String name, String value) {
        return value == null || value.isEmpty() ? "" : " " + name + "=\"" + Html.escape(value) + "\"";
    }

    /** One cell: its content (already escaped unless made raw) and how it looks. Each setter gives a new cell. */
    public static final class Cell {
        private final String content;
        private final Align align;
        private final boolean top;
        private final String cssClass;
        private final String colour;
        private final boolean bold;

        private Cell(String content, Align align, boolean top, String cssClass, String colour, boolean bold) {
            this.content = content;
            this.align = align;
            this.top = top;
            this.cssClass = cssClass;
            this.colour = colour;
            this.bold = bold;
        }

        public Cell align(Align a) {
            return new Cell(content, a, top, cssClass, colour, bold);
        }

        /** Content at the top of the cell, for a row whose other cells are tall. */
        public Cell top() {
            return new Cell(content, align, true, cssClass, colour, bold);
        }

        public Cell cssClass(String name) {
            return new Cell(content, align, top, name, colour, bold);
        }

        /** The text's colour, any CSS colour ("#cf222e"). */
        public Cell colour(String css) {
            return new Cell(content, align, top, cssClass, css, bold);
        }

        public Cell bold() {
            return new Cell(content, align, top, cssClass, colour, true);
        }

        private String style() {
            List<String> parts = new ArrayList<>();
            if (align != null) parts.add("text-align:" + align.name().toLowerCase(Locale.ROOT));
            if (top) parts.add("vertical-align:top");
            if (colour != null) parts.add("color:" + colour);
            return String.join(";", parts);
        }
    }
}
