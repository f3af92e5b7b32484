package org.mpi2nccl.kernel.render;

import io.github.spencerpark.jupyter.kernel.display.Renderer;
import io.github.spencerpark.jupyter.kernel.display.common.Image;

/**
 * BufferedImage (any RenderedImage) as PNG: basekernel's image renderer does exactly this (PNG preferred, JPEG and
 * GIF on request), so this file only names it next to the toolkit's other renderers.
 */
public final class ImageRenderer {
    private ImageRenderer() {
    }

    public static void register(Renderer renderer) {
        Image.registerAll(renderer);
    }
}
