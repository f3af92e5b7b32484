package org.mpi2nccl.kernel.render;

import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A table's cells as text, laid out to fit the notebook's column: decimals rounded to {@link #DIGITS} significant
 * digits (unless the column has a format of its own, set with Tablesaw's {@code setPrintFormatter}), numbers
 * marked for right alignment, and a table wider than {@link #MAX_WIDTH_PX} turned on its side (a few rows) or
 * cut into parts of columns (many rows), so that no output is wider than the notebook.
 *
 * <p>Widths are estimated from characters ({@link #CHAR_PX} a character plus the cell's padding): the kernel
 * does not see the browser. A header may wrap at its spaces, so it counts by its longest word; a unit in
 * parentheses, "(GB/s)", stays one word.
 */
final class TableLayout {
    static final int DIGITS = 3;
    static final int MAX_WIDTH_PX = 980;
    static final int CHAR_PX = 8;
    static final int PADDING_PX = 16;
    /** At most this many rows are turned on their side; longer tables are cut into parts of columns. */
    static final int MAX_TRANSPOSED_ROWS = 8;

    /** One column as shown: its header, its cells and whether they are numbers (right-aligned). */
    record Col(String header, List<String> cells, boolean numeric) {
        int px() {
            int chars = longestWord(header);
            for (String c : cells) {
                chars = Math.max(chars, c.length());
            }
            return chars * CHAR_PX + PADDING_PX;
        }
    }

    /** A table to draw: columns side by side (the first row of cells under each header). */
    record Part(List<Col> cols) {
        int px() {
            return cols.stream().mapToInt(Col::px).sum();
        }
    }

    private TableLayout() {
    }

    /** The first {@code rows} rows of {@code table}, in as many parts as it takes to fit the width. */
    static List<Part> layout(Table table, int rows) {
        List<Col> cols = new ArrayList<>();
        for (Column<?> c : table.columns()) {
            cols.add(column(c, rows));
        }
        Part whole = new Part(cols);
        if (whole.px() <= MAX_WIDTH_PX || cols.isEmpty()) {
            return List.of(whole);
        }
        if (rows <= MAX_TRANSPOSED_ROWS) {
            Part turned = transpose(cols, rows);
            if (turned.px() <= MAX_WIDTH_PX) {
                return List.of(turned);
            }
        }
        return split(cols);
    }

    /** Rows become columns: the first column names them when it holds labels (text), else "row i". */
    static Part transpose(List<Col> cols, int rows) {
        boolean labelled = !cols.get(0).numeric();
        List<Col> body = labelled ? cols.subList(1, cols.size()) : cols;
        List<Col> turned = new ArrayList<>();
        List<String> names = new ArrayList<>();
        body.forEach(c -> names.add(c.header()));
        turned.add(new Col(labelled ? cols.get(0).header() : "", names, false));
        for (int r = 0; r < rows; r++) {
            List<String> cells = new ArrayList<>();
            boolean numeric = true;
            for (Col c : body) {
                cells.add(c.cells().get(r));
                numeric &= c.numeric();
            }
            turned.add(new Col(labelled ? cols.get(0).cells().get(r) : "row " + r, cells, numeric));
        }
        return new Part(turned);
    }

    /** Columns packed into parts that each fit; a label column (text, first) is repeated in every part. */
    static List<Part> split(List<Col> cols) {
        if (cols.size() == 1) {
            return List.of(new Part(cols)); // one column cannot be cut: shown as it is, wide or not
        }
        Col label = cols.get(0).numeric() ? null : cols.get(0);
        List<Part> parts = new ArrayList<>();
        List<Col> current = new ArrayList<>();
        int px = 0;
        for (Col c : label == null ? cols : cols.subList(1, cols.size())) {
            if (current.isEmpty() && label != null) {
                current.add(label);
                px = label.px();
            }
            boolean alone = current.isEmpty() || (label != null && current.size() == 1);
            if (!alone && px + c.px() > MAX_WIDTH_PX) {
                parts.add(new Part(current));
                current = new ArrayList<>();
                px = 0;
                if (label != null) {
                    current.add(label);
                    px = label.px();
                }
            }
            current.add(c);
            px += c.px();
        }
        if (!current.isEmpty()) {
            parts.add(new Part(current));
        }
        return parts;
    }

    private static Col column(Column<?> c, int rows) {
        boolean numeric = c instanceof NumericColumn;
        boolean decimal = numeric && (c.type().name().equals("DOUBLE") || c.type().name().equals("FLOAT"));
        boolean ownFormat = decimal && hasOwnFormat((NumericColumn<?>) c, rows);
        List<String> cells = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            if (c.isMissing(r)) {
                cells.add("");
            } else if (decimal && !ownFormat) {
                cells.add(Numbers.format(((NumericColumn<?>) c).getDouble(r), DIGITS));
            } else {
                cells.add(c.getString(r));
            }
        }
        return new Col(c.name(), cells, numeric);
    }

    /** Whether the column prints otherwise than Tablesaw's default for decimals (all digits of the value). */
    private static boolean hasOwnFormat(NumericColumn<?> c, int rows) {
        DecimalFormat all = new DecimalFormat("0", DecimalFormatSymbols.getInstance(Locale.getDefault()));
        all.setMaximumFractionDigits(340);
        all.setGroupingUsed(false);
        for (int r = 0; r < rows; r++) {
            if (!c.isMissing(r)) {
                double v = c.getDouble(r);
                String shown = c.getString(r);
                return !shown.equals(all.format(v)) && !shown.equals(all.format(Double.parseDouble(Float.toString((float) v))));
            }
        }
        return false;
    }

    /** A header with the spaces inside its parentheses made unbreakable: a unit is never cut. */
    static String keepUnits(String header) {
        StringBuilder sb = new StringBuilder();
        int depth = 0;
        for (char ch : header.toCharArray()) {
            depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
            sb.append(ch == ' ' && depth > 0 ? '\u00a0' : ch);
        }
        return sb.toString();
    }

    private static int longestWord(String header) {
        int longest = 0;
        for (String w : keepUnits(header).split(" ")) {
            longest = Math.max(longest, w.length());
        }
        return longest;
    }
}
