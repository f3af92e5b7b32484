package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Graphics2D;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;

/** A chart that cannot be drawn leaves no file behind (an empty PNG would pass for a chart in a report). */
class ChartFilesTest {

    @Test
    void aChartThatFailsToDrawLeavesNoFile(@TempDir Path dir) {
        XYChart broken = new XYChart(200, 100) {
            @Override
            public void paint(Graphics2D g, int width, int height) {
                throw new IllegalStateException("Fontconfig head is null (as on a node without libfontconfig)");
            }
        };
        Path png = dir.resolve("broken.png");
        assertFalse(ChartFiles.trySavePng(broken, png, "redraw it elsewhere"));
        assertFalse(Files.exists(png), "an empty " + png.getFileName() + " was left behind");
    }

    @Test
    void aChartThatDrawsIsWritten(@TempDir Path dir) throws Exception {
        XYChart ok = new XYChart(200, 100);
        ok.addSeries("y", new double[] {1, 2, 3}, new double[] {1, 4, 9});
        Path png = dir.resolve("ok.png");
        assertTrue(ChartFiles.trySavePng(ok, png, "redraw it elsewhere"));
        assertTrue(Files.size(png) > 100, "PNG of " + Files.size(png) + " bytes");
    }
}
