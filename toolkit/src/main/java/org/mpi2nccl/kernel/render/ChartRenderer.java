package org.mpi2nccl.kernel.render;

import io.github.spencerpark.jupyter.kernel.display.RenderContext;
import io.github.spencerpark.jupyter.kernel.display.Renderer;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.internal.chartpart.Chart;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * XChart charts (line, scatter, bar, ...) as a PNG image; SVG on request ({@code display(chart, "image/svg+xml")}).
 * PNG is the default because every front end shows it and nbconvert keeps it in the saved notebook.
 *
 * <p>The PNG carries its display size as output metadata ({@code {"image/png": {"width": w, "height": h}}}),
 * at most {@link #MAX_WIDTH} x {@link #MAX_HEIGHT}: a chart is never wider than the notebook column, and never
 * tall enough to push a cell's output past Jupyter Notebook 6's auto-scroll threshold (100 lines, about 1800
 * px) on its own; that threshold is checked on the whole output of a cell, and only the cell's own metadata
 * ({@code "scrolled": false}) turns it off, so a notebook cell that shows several charts sets that.
 */
public final class ChartRenderer {
    private ChartRenderer() {
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final int MAX_WIDTH = 980;
    public static final int MAX_HEIGHT = 720;

    public static void register(Renderer renderer) {
        renderer.createRegistration(Chart.class)
                .preferring(MIMEType.IMAGE_PNG)
                .supporting(MIMEType.IMAGE_SVG, MIMEType.TEXT_PLAIN)
                .register((chart, ctx) -> render((Chart<?, ?>) chart, ctx));
    }

    static void render(Chart<?, ?> chart, RenderContext ctx) {
        if (ctx.renderIfRequested(MIMEType.IMAGE_PNG, () -> Base64.getEncoder().encodeToString(png(chart)))) {
            ctx.getOutputContainer().putMetaData(MIMEType.IMAGE_PNG, displaySize(chart.getWidth(), chart.getHeight()));
        }
        ctx.renderIfRequested(MIMEType.IMAGE_SVG, () -> svg(chart));
        ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> describe(chart));
    }

    /** The size a chart of {@code width} x {@code height} is shown at: its own, scaled down to fit the limits. */
    static Map<String, Integer> displaySize(int width, int height) {
        double scale = Math.min(1.0, Math.min((double) MAX_WIDTH / width, (double) MAX_HEIGHT / height));
        return Map.of("width", (int) Math.round(width * scale), "height", (int) Math.round(height * scale));
    }

    public static byte[] png(Chart<?, ?> chart) {
        try {
            return BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException ex) {
            throw new UncheckedIOException("could not encode the chart as PNG", ex);
        }
    }

    public static String svg(Chart<?, ?> chart) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            VectorGraphicsEncoder.saveVectorGraphic(chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        } catch (IOException ex) {
            throw new UncheckedIOException("could not encode the chart as SVG", ex);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String describe(Chart<?, ?> chart) {
        String title = chart.getTitle() == null || chart.getTitle().isEmpty() ? "" : " '" + chart.getTitle() + "'";
        return chart.getClass().getSimpleName() + title + " (" + chart.getWidth() + "x" + chart.getHeight() + ")";
    }
}
