package org.mpi2nccl.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * Charts written as PNG files by the benchmarks. Drawing text needs fonts, and a bare GPU node may have none
 * ("Fontconfig head is null"): then the run goes on with a line saying why there is no plot, since the CSV
 * files hold every number. The bundle carries a font, but the JDK also needs the system's libfontconfig, which
 * a GPU node may lack: redraw there from the CSV where a desktop JDK is ({@code mpi2nccl run --from-csv}).
 */
final class ChartFiles {
    private ChartFiles() {}

    /** Writes {@code chart} to {@code file}, or prints why not and how to draw it later ({@code redraw}); true if written. */
    static boolean trySavePng(Chart<?, ?> chart, Path file, String redraw) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            return true;
        } catch (IOException | RuntimeException | Error e) {
            // BitmapEncoder opens the file before drawing: an empty PNG would pass for a chart
            try {
                if (Files.isRegularFile(file) && Files.size(file) == 0) Files.delete(file);
            } catch (IOException ignored) {
                // the message below says what happened either way
            }
            System.err.println("no plot " + file.getFileName() + ": " + e + " (no fonts on this machine? install fontconfig"
                    + " and a font such as fonts-dejavu-core, or " + redraw + ")");
            return false;
        }
    }
}
