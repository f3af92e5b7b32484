package org.mpi2nccl.kernel.render;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.mpi2nccl.kernel.output.Display;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.Table;

import java.awt.image.BufferedImage;
import java.util.Base64;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;

class RenderersTest {
    private static boolean isPng(Object base64) {
        byte[] b = Base64.getDecoder().decode(base64.toString());
        return b.length > 8 && b[0] == (byte) 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G';
    }

    @Test
    void chartIsPngByDefaultAndSvgOnRequest() {
        XYChart chart = new XYChartBuilder().width(200).height(150).title("t").build();
        chart.addSeries("s", new double[] {1, 2}, new double[] {3, 4});
        DisplayData d = Display.render(chart);
        assertTrue(isPng(d.getData(MIMEType.IMAGE_PNG)));
        assertEquals("XYChart 't' (200x150)", d.getData(MIMEType.TEXT_PLAIN));
        DisplayData svg = Display.render(chart, "image/svg+xml");
        assertTrue(svg.getData(MIMEType.IMAGE_SVG).toString().contains("<svg"));
    }

    @Test
    void longTableIsCutWithANoteAndShortTableIsNot() {
        Table big = Table.create("big", IntColumn.create("i", IntStream.range(0, 45).toArray()));
        String html = Display.render(big).getData(MIMEType.TEXT_HTML).toString();
        assertTrue(html.contains(">19</td>"));
        assertFalse(html.contains(">20</td>"));
        assertTrue(html.contains("showing the first 20 of 45 rows"), html);
        Table small = Table.create("small", IntColumn.create("i", new int[] {1, 2, 3}));
        String smallHtml = Display.render(small).getData(MIMEType.TEXT_HTML).toString();
        assertFalse(smallHtml.contains("showing"), smallHtml);
        assertTrue(TableRenderer.text(big, 5).endsWith("showing the first 5 of 45 rows (TableRenderer.setRowLimit(n) shows more)"));
    }

    @Test
    void rowLimitMustBePositive() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TableRenderer.setRowLimit(0));
        assertTrue(e.getMessage().contains("at least 1"));
    }

    @Test
    void tableCellsAreEscaped() {
        Table t = Table.create("x", tech.tablesaw.api.StringColumn.create("s", "<b>&"));
        assertTrue(Display.render(t).getData(MIMEType.TEXT_HTML).toString().contains("&lt;b&gt;&amp;"));
    }

    @Test
    void bufferedImageIsPng() {
        BufferedImage img = new BufferedImage(4, 4, BufferedImage.TYPE_INT_RGB);
        assertTrue(isPng(Display.render(img).getData(MIMEType.IMAGE_PNG)));
    }
}
