package org.mpi2nccl.lessons.figures;

import static org.mpi2nccl.lessons.figures.Canvas.Anchor.END;
import static org.mpi2nccl.lessons.figures.Canvas.Anchor.MIDDLE;
import static org.mpi2nccl.lessons.figures.Canvas.GREY;
import static org.mpi2nccl.lessons.figures.Canvas.INK;
import static org.mpi2nccl.lessons.figures.Canvas.LIGHT;
import static org.mpi2nccl.lessons.figures.Canvas.RANKS;
import static org.mpi2nccl.lessons.figures.Canvas.tint;

import java.awt.Color;
import java.util.List;

/**
 * ZeRO stage 1 (lesson 07): the flat parameter vector cut into 4 slices, slice j owned by rank j and drawn in its
 * colour. Every rank keeps the optimizer state of its slice only; a step reduce-scatters the gradients, updates the
 * slice, and all-gathers the parameters.
 */
final class Zero1Figure {
    static final String NAME = "zero1-sharded-optimizer";
    private static final int N = 4, LEFT = 170, COL = 145, GAP = 10;
    private static final double SLICE = 29, SLICE_GAP = 4, BAR = N * SLICE + (N - 1) * SLICE_GAP;

    /** How a rank holds one slice of one array. */
    enum Held { OLD, NEW, OWN_GRADIENT, AVERAGE, STATE, NONE }

    private Zero1Figure() {}

    private static double col(int r) {
        return LEFT + r * (COL + GAP);
    }

    static String svg() {
        Canvas c = new Canvas(800, 508, "ZeRO stage 1: the optimizer state sharded over 4 ranks",
                "The flat parameter vector is cut into 4 slices; rank r owns slice r and keeps the optimizer state of"
                        + " that slice only. A step: 1. reduce-scatter the gradients, averaging, so that rank r receives"
                        + " the average gradient of slice r; 2. rank r updates slice r with its state; 3. all-gather the"
                        + " parameters, so that every rank again holds the whole updated model.");
        double right = col(N - 1) + COL;
        for (int r = 0; r < N; r++) {
            c.text("rank " + r, col(r) + COL / 2, 20, 13, true, INK, MIDDLE);
            c.rect(col(r) + 4, 28, COL - 8, 4, RANKS.get(r));
        }
        row(c, 48, List.of("parameters", "(full copy, slices 0-3)"), (r, j) -> Held.OLD);
        row(c, 92, List.of("its own gradient", "(from its share)"), (r, j) -> Held.OWN_GRADIENT);
        band(c, 132, "1. reduce-scatter the gradients (average): rank r receives slice r of the average", right);
        row(c, 172, List.of("averaged gradient", "(slice r only)"), (r, j) -> r == j ? Held.AVERAGE : Held.NONE);
        row(c, 216, List.of("optimizer state", "(slice r only, always)"), (r, j) -> r == j ? Held.STATE : Held.NONE);
        band(c, 256, "2. update: rank r updates slice r only, with its slice of the state", right);
        row(c, 296, List.of("parameters", "(slice r updated)"), (r, j) -> r == j ? Held.NEW : Held.OLD);
        band(c, 336, "3. all-gather the parameters: every rank receives every updated slice", right);
        row(c, 376, List.of("parameters", "(full, updated, equal)"), (r, j) -> Held.NEW);

        legend(c, 426);
        c.text("Steps 1 and 3 are the two halves of the ring all-reduce: as many bytes as plain data parallelism",
                400, 480, 12, false, GREY, MIDDLE);
        c.text("sends, with 1/4 of the optimizer state on each rank.", 400, 496, 12, false, GREY, MIDDLE);
        return c.svg();
    }

    private interface Holding {
        Held of(int rank, int slice);
    }

    private static void row(Canvas c, double y, List<String> label, Holding holding) {
        c.lines(label, LEFT - 14, y + 9, 12, 14, END);
        for (int r = 0; r < N; r++) {
            double x = col(r) + (COL - BAR) / 2;
            for (int j = 0; j < N; j++) slice(c, x + j * (SLICE + SLICE_GAP), y, j, holding.of(r, j));
        }
    }

    private static void slice(Canvas c, double x, double y, int j, Held h) {
        Color owner = RANKS.get(j);
        switch (h) {
            case NONE -> c.dashedBox(x, y, SLICE, 24, tint(GREY, 0.3));
            case OLD -> c.box(x, y, SLICE, 24, tint(owner, 0.7), tint(owner, 0.3));
            case NEW -> c.box(x, y, SLICE, 24, tint(owner, 0.3), INK);
            case OWN_GRADIENT -> c.box(x, y, SLICE, 24, LIGHT, GREY);
            case AVERAGE -> c.box(x, y, SLICE, 24, tint(owner, 0.4), INK);
            case STATE -> {
                c.box(x, y, SLICE, 24, tint(owner, 0.4), INK);
                c.outline(x + 3, y + 3, SLICE - 6, 18, INK, 0.8f);   // a box within: state kept between steps
            }
        }
        if (h != Held.NONE) c.text(Integer.toString(j), x + SLICE / 2, y + 17, 11, h == Held.NEW, INK, MIDDLE);
    }

    private static void band(Canvas c, double y, String what, double right) {
        c.box(LEFT, y, right - LEFT, 26, tint(GREY, 0.88), null);
        c.text(what, (LEFT + right) / 2, y + 17, 12, true, INK, MIDDLE);
    }

    private static void legend(Canvas c, double y) {
        double x = 24;
        Object[][] items = {{Held.OLD, "parameters (slice j, owner rank j)"}, {Held.NEW, "updated"},
                {Held.STATE, "optimizer state"}, {Held.NONE, "not kept"}};
        for (Object[] it : items) {
            slice(c, x, y, 1, (Held) it[0]);
            c.text((String) it[1], x + SLICE + 8, y + 17, 12, Canvas.Anchor.START);
            x += SLICE + 8 + (it[1].toString().length() * 7.0) + 26;
        }
    }
}
