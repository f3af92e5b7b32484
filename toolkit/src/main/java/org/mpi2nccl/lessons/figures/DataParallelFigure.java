package org.mpi2nccl.lessons.figures;

import static org.mpi2nccl.lessons.figures.Canvas.Anchor.END;
import static org.mpi2nccl.lessons.figures.Canvas.Anchor.MIDDLE;
import static org.mpi2nccl.lessons.figures.Canvas.GREY;
import static org.mpi2nccl.lessons.figures.Canvas.INK;
import static org.mpi2nccl.lessons.figures.Canvas.LIGHT;
import static org.mpi2nccl.lessons.figures.Canvas.RANKS;
import static org.mpi2nccl.lessons.figures.Canvas.tint;

import java.util.List;

/**
 * Data parallelism (lesson 03): one batch cut into a share per rank, every rank a full copy of the model, the
 * gradients averaged by an all-reduce, and the same update on every rank.
 */
final class DataParallelFigure {
    static final String NAME = "data-parallel";
    private static final int N = 4, LEFT = 150, COL = 150, GAP = 10;

    private DataParallelFigure() {}

    private static double col(int r) {
        return LEFT + r * (COL + GAP);
    }

    static String svg() {
        Canvas c = new Canvas(800, 470, "Data parallelism on 4 ranks",
                "One batch of B examples is split into 4 shares of B/4, one per rank. Every rank holds a full copy of"
                        + " the model and runs forward and backward on its share, which gives its own gradient. An"
                        + " all-reduce averages the 4 gradients, so every rank holds the same average and applies the"
                        + " same update: the copies stay equal.");
        double right = col(N - 1) + COL;
        steps(c);

        // 1. the batch, cut into shares
        c.text("one batch of B examples", (LEFT + right) / 2, 22, 13, true, INK, MIDDLE);
        for (int r = 0; r < N; r++) {
            double x = col(r);
            c.box(x, 32, COL, 28, tint(RANKS.get(r), 0.6), RANKS.get(r));
            c.text("share " + r + ": B/4 examples", x + COL / 2, 51, 12, MIDDLE);
            c.arrow(x + COL / 2, 62, x + COL / 2, 88, INK, 1.4f);
        }

        // 2. every rank: the same model, its own share, its own gradient
        for (int r = 0; r < N; r++) {
            double x = col(r);
            c.box(x, 92, COL, 150, null, RANKS.get(r));
            c.text("rank " + r, x + COL / 2, 110, 13, true, INK, MIDDLE);
            for (int layer = 0; layer < 3; layer++) c.box(x + 25, 120 + layer * 14, COL - 50, 10, LIGHT, GREY);
            c.text("full model copy w", x + COL / 2, 172, 12, MIDDLE);
            c.text("forward + backward", x + COL / 2, 190, 12, MIDDLE);
            c.text("on its own share", x + COL / 2, 204, 12, MIDDLE);
            c.box(x + 20, 214, COL - 40, 20, tint(RANKS.get(r), 0.35), RANKS.get(r));
            c.text("gradient g" + r, x + COL / 2, 228, 12, true, INK, MIDDLE);
            c.arrow(x + COL / 2, 244, x + COL / 2, 272, INK, 1.4f);
        }

        // 3. the all-reduce: one averaged gradient, made of every rank's, on every rank
        c.box(LEFT, 276, right - LEFT, 62, tint(GREY, 0.85), INK);
        c.text("all-reduce (average):  g = (g0 + g1 + g2 + g3) / 4", (LEFT + right) / 2, 296, 13, true, INK, MIDDLE);
        for (int r = 0; r < N; r++) {
            double x = col(r) + 20, w = (COL - 40) / (double) N;
            for (int k = 0; k < N; k++) c.rect(x + k * w, 308, w, 20, tint(RANKS.get(k), 0.35));
            c.outline(x, 308, COL - 40, 20, INK, 1f);
            c.text("g", x + (COL - 40) / 2, 322, 12, true, INK, MIDDLE);
            c.arrow(col(r) + COL / 2, 340, col(r) + COL / 2, 364, INK, 1.4f);
        }

        // 4. the same update everywhere
        for (int r = 0; r < N; r++) {
            double x = col(r);
            c.box(x, 368, COL, 34, LIGHT, GREY);
            c.text("w ← w − η·g", x + COL / 2, 390, 13, MIDDLE);
        }
        c.text("every rank applies the same update, so the copies stay equal", (LEFT + right) / 2, 428, 13, true,
                INK, MIDDLE);
        c.text("(one rank with the whole batch would take this very step)", (LEFT + right) / 2, 448, 12, false,
                GREY, MIDDLE);
        return c.svg();
    }

    private static void steps(Canvas c) {
        double x = LEFT - 14;
        c.lines(List.of("1. split the batch", "into shares"), x, 42, 12, 15, END);
        c.lines(List.of("2. each rank:", "full model,", "own share,", "own gradient"), x, 140, 12, 15, END);
        c.lines(List.of("3. average the", "gradients"), x, 300, 12, 15, END);
        c.lines(List.of("4. update"), x, 390, 12, 15, END);
    }
}
