package org.mpi2nccl.lessons.figures;

import static org.mpi2nccl.lessons.figures.Canvas.Anchor.END;
import static org.mpi2nccl.lessons.figures.Canvas.Anchor.MIDDLE;
import static org.mpi2nccl.lessons.figures.Canvas.Anchor.START;
import static org.mpi2nccl.lessons.figures.Canvas.GREY;
import static org.mpi2nccl.lessons.figures.Canvas.INK;
import static org.mpi2nccl.lessons.figures.Canvas.LIGHT;
import static org.mpi2nccl.lessons.figures.Canvas.RANKS;
import static org.mpi2nccl.lessons.figures.Canvas.tint;

import java.util.List;

/**
 * Tensor parallelism against pipeline parallelism, on 4 ranks. Tensor parallelism cuts one layer's weight matrix
 * across the ranks and communicates activations inside the layer (an all-gather after a split by columns, an
 * all-reduce after a split by rows). Pipeline parallelism cuts the model's layers into stages, one per rank, and
 * sends activations from stage to stage, with the batch cut into micro-batches (here GPipe's schedule: every
 * micro-batch's forward, then every backward).
 */
final class TensorPipelineFigure {
    static final String NAME = "tensor-vs-pipeline";
    private static final int N = 4, MICRO = 4;
    private static final double M = 56, STRIPE = M / N;   // a matrix is drawn M px square, cut into 4 stripes

    private TensorPipelineFigure() {}

    static String svg() {
        Canvas c = new Canvas(800, 572, "Tensor parallelism and pipeline parallelism on 4 ranks",
                "Tensor parallelism splits one layer's weight matrix across the ranks. Split by columns, rank r"
                        + " computes its columns of the output, and an all-gather joins them; split by rows, each rank"
                        + " computes a partial output and an all-reduce sums them. Pipeline parallelism splits the"
                        + " layers across the ranks into 4 stages; the batch is cut into 4 micro-batches, whose"
                        + " activations go from stage to stage in forward and whose gradients come back in backward;"
                        + " the idle slots are the pipeline bubble.");
        tensor(c);
        c.line(12, 290, 788, 290, tint(GREY, 0.5), 1f, false);
        pipeline(c, 316);
        return c.svg();
    }

    private static void tensor(Canvas c) {
        c.text("Tensor parallelism: one layer's weight matrix W split across the ranks", 12, 20, 14, true, INK, START);
        c.text("The ranks talk inside every layer, in forward and in backward.", 12, 38, 12, false, GREY, START);
        // split by columns: Y = X·W, rank r computes Y's columns r; an all-gather gives each rank all of Y
        double y = 84, x = 40;
        c.text("split W by columns", x, 64, 12, true, INK, START);
        matrix(c, x, y, M / 2, M, "X");
        c.text("×", x + M / 2 + 8, y + M / 2 + 5, 16, MIDDLE);
        columns(c, x + M / 2 + 16, y, "W");
        c.text("=", x + 1.5 * M + 26, y + M / 2 + 5, 16, MIDDLE);
        columns(c, x + 1.5 * M + 36, y, "Y");
        c.arrow(x + 2.5 * M + 42, y + M / 2, x + 3.5 * M + 58, y + M / 2, INK, 1.6f);
        c.text("all-gather", x + 3 * M + 50, y + M / 2 - 8, 12, true, INK, MIDDLE);
        columns(c, x + 3.5 * M + 64, y, "Y");
        c.lines(List.of("X is the same on every rank. Rank r holds W's", "columns r and computes Y's columns r; an",
                "all-gather gives every rank all of Y."), x, y + M + 22, 11, 14, START);

        // split by rows: X's columns r times W's rows r is a partial Y; an all-reduce sums them
        x = 410;
        c.text("split W by rows", x, 64, 12, true, INK, START);
        columns(c, x, y, "X");
        c.text("×", x + M + 8, y + M / 2 + 5, 16, MIDDLE);
        rows(c, x + M + 16, y, "W");
        c.text("=", x + 2 * M + 26, y + M / 2 + 5, 16, MIDDLE);
        double card = M * 0.8;
        for (int r = N - 1; r >= 0; r--) {   // 4 partial outputs, each the whole size, stacked like cards
            c.box(x + 2 * M + 36 + r * 5, y - 6 + r * 5, card, card, tint(RANKS.get(r), 0.55), RANKS.get(r));
        }
        c.text("partial", x + 2 * M + 36 + card / 2, y + card / 2 - 2, 10, false, INK, MIDDLE);
        c.text("Y", x + 2 * M + 36 + card / 2, y + card / 2 + 11, 12, true, INK, MIDDLE);
        double from = x + 2 * M + 36 + card + 20, to = x + 4 * M + 64;
        c.arrow(from, y + M / 2, to, y + M / 2, INK, 1.6f);
        c.text("all-reduce", (from + to) / 2, y + M / 2 - 8, 12, true, INK, MIDDLE);
        matrix(c, to + 6, y, M, M, "Y");
        c.lines(List.of("Rank r holds X's columns r and W's rows r, and", "computes a partial Y of the whole size; an",
                "all-reduce sums them on every rank."), x, y + M + 22, 11, 14, START);

        c.text("Each rank keeps 1/4 of the layer's weights, but the activations cross the links in every split layer,"
                + " on the", 400, 232, 12, false, INK, MIDDLE);
        c.text("critical path: tensor parallelism needs the fastest links (NVLink, within one machine).", 400, 248, 12,
                false, INK, MIDDLE);
        c.text("(Megatron-LM pairs the two, columns then rows, so that the pair needs one all-reduce and no"
                + " all-gather.)", 400, 270, 11, false, GREY, MIDDLE);
    }

    private static void pipeline(Canvas c, double top) {
        c.text("Pipeline parallelism: the layers split across the ranks, one stage each", 12, top, 14, true, INK,
                START);
        c.text("The ranks talk only between neighbouring stages: activations forward, their gradients backward.", 12,
                top + 18, 12, false, GREY, START);
        // the model: 8 layers, 2 a stage
        double y = top + 36, w = 70, gap = 8, x0 = 20;
        for (int s = 0; s < N; s++) {
            double x = x0 + s * (2 * w + gap + 18);
            c.box(x - 4, y - 4, 2 * w + gap + 8, 40, tint(RANKS.get(s), 0.75), RANKS.get(s));
            for (int k = 0; k < 2; k++) {
                c.box(x + k * (w + gap), y, w, 22, LIGHT, GREY);
                c.text("layer " + (2 * s + k + 1), x + k * (w + gap) + w / 2, y + 15, 11, MIDDLE);
            }
            c.text("stage " + s + " = rank " + s, x + w + gap / 2, y + 33, 10, true, INK, MIDDLE);
            if (s < N - 1) {
                double ax = x + 2 * w + gap + 4;
                c.arrow(ax, y + 6, ax + 14, y + 6, INK, 1.4f);
                c.arrow(ax + 14, y + 20, ax, y + 20, GREY, 1.4f, true);
            }
        }
        double lx = x0 + 4 * (2 * w + gap + 18);
        c.arrow(lx, y + 6, lx + 16, y + 6, INK, 1.4f);
        c.text("activations", lx + 22, y + 10, 11, false, INK, START);
        c.arrow(lx + 16, y + 20, lx, y + 20, GREY, 1.4f, true);
        c.text("gradients", lx + 22, y + 24, 11, false, GREY, START);
        schedule(c, y + 62);
    }

    /** GPipe's schedule: stage s runs micro-batch m's forward at slot s + m, its backward after every forward. */
    private static void schedule(Canvas c, double y) {
        int slots = 2 * (MICRO + N - 1);
        double x0 = 80, slot = (780 - x0) / slots, h = 26;
        c.text("time →", 780, y - 6, 11, false, GREY, END);
        c.text("4 micro-batches (1-4): F = forward, B = backward; empty slots = the pipeline bubble", x0, y - 6, 11,
                false, GREY, START);
        for (int s = 0; s < N; s++) {
            double ry = y + s * (h + 6);
            c.text("rank " + s, x0 - 10, ry + 17, 12, true, INK, END);
            for (int t = 0; t < slots; t++) {
                double x = x0 + t * slot;
                int fwd = t - s, bwd = t - (MICRO + N - 1) - (N - 1 - s);
                if (fwd >= 0 && fwd < MICRO) {
                    c.box(x + 1, ry, slot - 2, h, tint(RANKS.get(s), 0.6), RANKS.get(s));
                    c.text("F" + (fwd + 1), x + slot / 2, ry + 17, 12, false, INK, MIDDLE);
                } else if (bwd >= 0 && bwd < MICRO) {
                    c.box(x + 1, ry, slot - 2, h, tint(RANKS.get(s), 0.2), INK);
                    c.text("B" + (bwd + 1), x + slot / 2, ry + 17, 12, true, INK, MIDDLE);
                } else {
                    c.dashedBox(x + 1, ry, slot - 2, h, tint(GREY, 0.4));
                }
            }
        }
        c.text("Each rank keeps only its layers; with more micro-batches the bubble is a smaller part of the step.",
                400, y + N * (h + 6) + 14, 12, false, INK, MIDDLE);
    }

    /** A plain matrix, the same on every rank, with its name in the middle. */
    private static void matrix(Canvas c, double x, double y, double w, double h, String name) {
        c.box(x, y, w, h, LIGHT, INK);
        c.text(name, x + w / 2, y + h / 2 + 5, 13, true, INK, MIDDLE);
    }

    /** A matrix cut into 4 column stripes, stripe r in rank r's colour. */
    private static void columns(Canvas c, double x, double y, String name) {
        for (int r = 0; r < N; r++) c.rect(x + r * STRIPE, y, STRIPE, M, tint(RANKS.get(r), 0.45));
        c.outline(x, y, M, M, INK, 1f);
        c.text(name, x + M / 2, y - 4, 12, true, INK, MIDDLE);
    }

    /** A matrix cut into 4 row stripes, stripe r in rank r's colour. */
    private static void rows(Canvas c, double x, double y, String name) {
        for (int r = 0; r < N; r++) c.rect(x, y + r * STRIPE, M, STRIPE, tint(RANKS.get(r), 0.45));
        c.outline(x, y, M, M, INK, 1f);
        c.text(name, x + M / 2, y - 4, 12, true, INK, MIDDLE);
    }
}
