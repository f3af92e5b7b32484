package org.mpi2nccl.kernel.render;

import io.github.spencerpark.jupyter.kernel.display.Renderer;
import io.github.spencerpark.jupyter.kernel.display.common.Text;
import io.github.spencerpark.jupyter.kernel.display.common.Url;

/** The one place that lists what the kernel knows how to show; the kernel and the rank engines both use it. */
public final class Renderers {
    private Renderers() {
    }

    /** A renderer for images, charts, tables, arrays and tensors, URLs and text (anything else shows its {@code toString()}). */
    public static Renderer create() {
        Renderer renderer = new Renderer();
        ImageRenderer.register(renderer);
        Url.registerAll(renderer);
        Text.registerAll(renderer);
        ChartRenderer.register(renderer);
        TableRenderer.register(renderer);
        ArrayRenderer.register(renderer);
        return renderer;
    }
}
