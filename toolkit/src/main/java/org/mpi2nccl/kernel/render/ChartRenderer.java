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

/**
 * XChart charts (line, scatter, bar, ...) as a PNG image; SVG on request ({@code display(chart, "image/svg+xml")}).
 * PNG is the default because every front end shows it and nbconvert keeps it in the saved notebook.
 */
public final class ChartRenderer {
    private ChartRenderer() {
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    public static void register(Renderer renderer) {
        renderer.createRegistration(Chart.class)
                .preferring(MIMEType.IMAGE_PNG)
                .supporting(MIMEType.IMAGE_SVG, MIMEType.TEXT_PLAIN)
                .register((chart, ctx) -> render((Chart<?, ?>) chart, ctx));
    }

    static void render(Chart<?, ?> chart, RenderContext ctx) {
        ctx.renderIfRequested(MIMEType.IMAGE_PNG, () -> Base64.getEncoder().encodeToString(png(chart)));
        ctx.renderIfRequested(MIMEType.IMAGE_SVG, () -> svg(chart));
        ctx.renderIfRequested(MIMEType.TEXT_PLAIN, () -> describe(chart));
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
