package org.mpi2nccl.lessons.figures;

import static org.mpi2nccl.lessons.figures.Canvas.Anchor.END;
import static org.mpi2nccl.lessons.figures.Canvas.Anchor.MIDDLE;
import static org.mpi2nccl.lessons.figures.Canvas.Anchor.START;
import static org.mpi2nccl.lessons.figures.Canvas.GREY;
import static org.mpi2nccl.lessons.figures.Canvas.INK;
import static org.mpi2nccl.lessons.figures.Canvas.LIGHT;
import static org.mpi2nccl.lessons.figures.Canvas.RANKS;
import static org.mpi2nccl.lessons.figures.Canvas.SKY;
import static org.mpi2nccl.lessons.figures.Canvas.YELLOW;
import static org.mpi2nccl.lessons.figures.Canvas.tint;

import java.awt.Color;

/**
 * FSDP, or ZeRO stage 3: the parameters are sharded too. Each rank keeps shard r of every layer; a layer's full
 * parameters exist only while it computes: all-gathered before its forward and again before its backward, freed
 * after, with its gradients reduce-scattered back into shards. Communication is drawn yellow, computation grey and
 * the update blue, so that none of them is mistaken for a rank's colour.
 */
final class FsdpFigure {
    static final String NAME = "fsdp-zero3";
    private static final int N = 4, LAYERS = 3, LEFT = 150, COL = 150, GAP = 10;
    private static final double SHARD = 29, SHARD_GAP = 4, BAR = N * SHARD + (N - 1) * SHARD_GAP;
    private static final Color TALK = tint(YELLOW, 0.3), WORK = LIGHT, UPDATE = tint(SKY, 0.55);
    private static final double X0 = 16, GROUP = 258;

    private FsdpFigure() {}

    private static double col(int r) {
        return LEFT + r * (COL + GAP);
    }

    static String svg() {
        Canvas c = new Canvas(800, 504, "FSDP (ZeRO stage 3): parameters, gradients and optimizer state sharded",
                "Each of 4 ranks keeps one shard of every layer: its parameters, gradients and optimizer state. In"
                        + " forward, each layer's parameters are all-gathered just before the layer runs and freed"
                        + " after it. In backward, each layer's parameters are all-gathered again, its gradients"
                        + " computed and reduce-scattered so that each rank receives the averaged gradient of its"
                        + " shard, and the full copies freed. Each rank then updates its own shards.");
        shards(c);
        c.text("One step, on every rank at once (layer by layer):", X0, 200, 13, true, INK, START);
        c.text("forward", X0, 222, 12, true, GREY, START);
        for (int l = 1; l <= LAYERS; l++) {
            double x = X0 + (l - 1) * GROUP;
            box(c, x, 228, 74, TALK, "all-gather", "layer " + l);
            c.arrow(x + 74, 250, x + 80, 250, INK, 1f);
            box(c, x + 80, 228, 66, WORK, "forward", "layer " + l);
            if (l < LAYERS) c.arrow(x + 146, 250, x + GROUP, 250, INK, 1f);
            c.text("then free it", x + 113, 288, 11, false, GREY, MIDDLE);
        }
        c.text("backward", X0, 314, 12, true, GREY, START);
        for (int i = 0; i < LAYERS; i++) {
            int l = LAYERS - i;
            double x = X0 + i * GROUP;
            box(c, x, 320, 74, TALK, "all-gather", "layer " + l);
            c.arrow(x + 74, 342, x + 80, 342, INK, 1f);
            box(c, x + 80, 320, 66, WORK, "backward", "layer " + l);
            c.arrow(x + 146, 342, x + 152, 342, INK, 1f);
            box(c, x + 152, 320, 98, TALK, "reduce-scatter", "its gradients");
            if (i < LAYERS - 1) c.arrow(x + 250, 342, x + GROUP, 342, INK, 1f);
            c.text("then free the full layer", x + 125, 380, 11, false, GREY, MIDDLE);
        }
        c.box(X0, 394, 3 * GROUP - 8, 30, UPDATE, INK);
        c.text("update: each rank updates its own shard of every layer, with its shard of the optimizer state",
                X0 + (3 * GROUP - 8) / 2, 413, 12, true, INK, MIDDLE);
        c.text("A full layer lives only while it computes: memory holds the shards and the layer at work. The price:",
                400, 450, 12, false, GREY, MIDDLE);
        c.text("the parameters are all-gathered twice per step, 1.5 times the bytes of a data-parallel all-reduce.",
                400, 466, 12, false, GREY, MIDDLE);
        c.text("ZeRO-1 shards only the optimizer state; FSDP shards the parameters and gradients as well.", 400, 490,
                12, true, INK, MIDDLE);
        return c.svg();
    }

    /** What each rank keeps between steps: shard r of every layer, and nothing else. */
    private static void shards(Canvas c) {
        c.text("What each rank keeps: shard r of every layer (its parameters, gradients and optimizer state)",
                X0, 20, 13, true, INK, START);
        for (int r = 0; r < N; r++) {
            c.text("rank " + r, col(r) + COL / 2, 44, 13, true, INK, MIDDLE);
            c.rect(col(r) + 4, 50, COL - 8, 4, RANKS.get(r));
        }
        for (int l = 1; l <= LAYERS; l++) {
            double y = 62 + (l - 1) * 32;
            c.text("layer " + l, LEFT - 14, y + 17, 12, END);
            for (int r = 0; r < N; r++) {
                double x = col(r) + (COL - BAR) / 2;
                for (int j = 0; j < N; j++) {
                    double sx = x + j * (SHARD + SHARD_GAP);
                    if (j == r) {
                        c.box(sx, y, SHARD, 24, tint(RANKS.get(j), 0.4), INK);
                        c.text(Integer.toString(j), sx + SHARD / 2, y + 17, 11, true, INK, MIDDLE);
                    } else {
                        c.dashedBox(sx, y, SHARD, 24, tint(GREY, 0.3));
                    }
                }
            }
        }
        c.text("dashed: the other ranks' shards, not kept; an all-gather brings them in, one layer at a time",
                LEFT, 172, 11, false, GREY, START);
    }

    private static void box(Canvas c, double x, double y, double w, Color fill, String first, String second) {
        c.box(x, y, w, 44, fill, INK);
        c.text(first, x + w / 2, y + 19, 11, false, INK, MIDDLE);
        c.text(second, x + w / 2, y + 34, 11, false, INK, MIDDLE);
    }
}
