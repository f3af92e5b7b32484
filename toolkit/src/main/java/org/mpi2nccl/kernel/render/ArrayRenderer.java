package org.mpi2nccl.kernel.render;

import io.github.spencerpark.jupyter.kernel.display.RenderContext;
import io.github.spencerpark.jupyter.kernel.display.Renderer;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.html.Html;
import org.mpi2nccl.html.HtmlTable;
import org.mpi2nccl.tensor.NDArray;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * NDArrays and autograd Tensors as a small grid: shape, type and device on top, then the values, or for a big
 * array its corners ({@link #EDGE} rows and columns from each end, with ellipses between), as numpy prints them.
 * An array of more than two axes is shown as rows of its last axis. Only the corners are copied off a GPU.
 */
public final class ArrayRenderer {
    /** Rows and columns shown from each end of a big array. */
    public static final int EDGE = 3;
    private static final int DIGITS = 4;

    private ArrayRenderer() {
    }

    public static void register(Renderer renderer) {
        renderer.createRegistration(NDArray.class)
                .preferring(MIMEType.TEXT_HTML)
                .supporting(MIMEType.TEXT_PLAIN)
                .register((a, ctx) -> render(a, "NDArray", ctx));
        renderer.createRegistration(Tensor.class)
                .preferring(MIMEType.TEXT_HTML)
                .supporting(MIMEType.TEXT_PLAIN)
                .register((t, ctx) -> render(t.data(), "Tensor" + (t.requiresGrad() ? " (requires grad)" : ""), ctx));
    }

    private static void render(NDArray a, String kind, RenderContext ctx) {
        Grid g = Grid.of(a, kind);
        ctx.renderIfRequested(MIMEType.TEXT_HTML, g::html);
        ctx.renderIfRequested(MIMEType.TEXT_PLAIN, g::text);
    }

    /** What is shown: a title and the cells of the grid ("..." where rows or columns are left out). */
    record Grid(String title, List<List<String>> cells) {
        static Grid of(NDArray a, String kind) {
            if (a.isClosed()) {
                return new Grid(kind + ", closed", List.of());
            }
            String title = kind + " " + Arrays.toString(a.shape()) + " float32 on " + a.device();
            if (a.size() == 0) {
                return new Grid(title, List.of());
            }
            if (a.ndim() == 0) {
                return new Grid(title, List.of(List.of(Numbers.format(a.item(), DIGITS))));
            }
            int cols = a.shape(a.ndim() - 1);
            int rows = (int) (a.size() / cols);
            if (a.ndim() > 2) {
                title += ", shown as " + rows + " rows of the last axis";
            }
            try (NDArray compact = a.compact(); NDArray m = compact.reshape(rows, cols)) {
                return new Grid(title, corners(m, rows, cols));
            }
        }

        private static List<List<String>> corners(NDArray m, int rows, int cols) {
            int[][] rowRanges = ranges(rows);
            int[][] colRanges = ranges(cols);
            List<List<String>> cells = new java.util.ArrayList<>();
            for (int ri = 0; ri < rowRanges.length; ri++) {
                int[] r = rowRanges[ri];
                String[][] block = new String[r[1] - r[0]][];
                for (int i = 0; i < block.length; i++) {
                    block[i] = new String[0];
                }
                for (int ci = 0; ci < colRanges.length; ci++) {
                    int[] c = colRanges[ci];
                    float[] v;
                    try (NDArray rs = m.slice(0, r[0], r[1]); NDArray b = rs.slice(1, c[0], c[1])) {
                        v = b.toArray();
                    }
                    int w = c[1] - c[0];
                    for (int i = 0; i < block.length; i++) {
                        String[] row = block[i];
                        int at = row.length;
                        row = Arrays.copyOf(row, at + w + (ci > 0 ? 1 : 0));
                        if (ci > 0) {
                            row[at++] = "…";
                        }
                        for (int j = 0; j < w; j++) {
                            row[at + j] = Numbers.format(v[i * w + j], DIGITS);
                        }
                        block[i] = row;
                    }
                }
                if (ri > 0) {
                    cells.add(Collections.nCopies(block[0].length, "⋮"));
                }
                for (String[] row : block) {
                    cells.add(List.of(row));
                }
            }
            return cells;
        }

        /** [start, end) ranges along an axis of length n: all of it, or the first and last EDGE. */
        private static int[][] ranges(int n) {
            return n <= 2 * EDGE + 1 ? new int[][] {{0, n}} : new int[][] {{0, EDGE}, {n - EDGE, n}};
        }

        String html() {
            StringBuilder sb = new StringBuilder("<div class=\"mpi2nccl-array\"><b>").append(Html.escape(title))
                    .append("</b>");
            if (!cells.isEmpty()) {
                HtmlTable grid = new HtmlTable().style("font-family:monospace");
                for (List<String> row : cells) {
                    grid.row(row.stream().map(v -> HtmlTable.cell(v).align(HtmlTable.Align.RIGHT)).toList());
                }
                sb.append(grid.html());
            }
            return sb.append("</div>").toString();
        }

        String text() {
            int width = cells.stream().flatMap(List::stream).mapToInt(String::length).max().orElse(0);
            String body = cells.stream()
                    .map(row -> row.stream().map(v -> " ".repeat(width - v.length()) + v)
                            .collect(Collectors.joining("  ", "  ", "")))
                    .collect(Collectors.joining("\n"));
            return cells.isEmpty() ? title : title + "\n" + body;
        }
    }
}
