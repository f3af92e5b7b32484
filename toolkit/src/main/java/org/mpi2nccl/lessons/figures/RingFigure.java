package org.mpi2nccl.lessons.figures;

import static org.mpi2nccl.lessons.figures.Canvas.Anchor.END;
import static org.mpi2nccl.lessons.figures.Canvas.Anchor.MIDDLE;
import static org.mpi2nccl.lessons.figures.Canvas.Anchor.START;
import static org.mpi2nccl.lessons.figures.Canvas.GREY;
import static org.mpi2nccl.lessons.figures.Canvas.INK;
import static org.mpi2nccl.lessons.figures.Canvas.RANKS;
import static org.mpi2nccl.lessons.figures.Canvas.tint;

/**
 * The ring all-reduce on 4 ranks (lesson 02), step by step, with lesson 02's schedule: at reduce-scatter step s rank
 * r sends segment (r − s − 1) mod p to rank r + 1, which adds it to its own; at all-gather step s it sends segment
 * (r − s) mod p, which the receiver copies. Each segment is drawn as 4 stripes, stripe k in rank k's colour once
 * rank k's numbers are in it, so the sums grow visibly and a complete sum shows all four colours.
 */
final class RingFigure {
    static final String NAME = "ring-allreduce";
    private static final int P = 4;
    private static final double LEFT = 128, CELL = 36, CELL_GAP = 4, BLOCK_GAP = 12, ROW = 24, ROW_GAP = 28;
    private static final double BLOCK = P * CELL + (P - 1) * CELL_GAP;

    private RingFigure() {}

    static String svg() {
        Canvas c = new Canvas(800, 584, "Ring all-reduce on 4 ranks: reduce-scatter, then all-gather",
                "Each rank's buffer is cut into 4 segments. In the reduce-scatter, 3 steps, every rank sends one"
                        + " segment to its right neighbour, which adds it to its own copy; after it rank r holds the"
                        + " complete sum of segment r. In the all-gather, 3 more steps, every rank sends a finished"
                        + " segment to the right, which copies it; after it every rank holds every complete segment.");
        legend(c);
        // held[r][j]: bit k set when rank k's numbers are in rank r's copy of segment j
        int[][] held = new int[P][P];
        for (int r = 0; r < P; r++) for (int j = 0; j < P; j++) held[r][j] = 1 << r;

        double y = 112;
        c.text("Reduce-scatter: 3 steps. Each rank sends one segment to its right neighbour, which adds it.", 12, y, 13,
                true, INK, START);
        y += 14;
        row(c, "start", y, held, sends(0, false));
        for (int s = 0; s < P - 1; s++) {
            int[] sent = sends(s, false);
            held = step(held, sent, true);
            y += ROW + ROW_GAP;
            row(c, "step " + (s + 1), y, held, s < P - 2 ? sends(s + 1, false) : null);
            moves(c, y - ROW_GAP, sent);
        }
        c.text("rank r now holds the complete sum of segment r", LEFT + 4 * (BLOCK + BLOCK_GAP) - BLOCK_GAP, y + ROW + 16,
                12, false, GREY, END);

        y += ROW + 44;
        c.text("All-gather: 3 more steps. Each rank sends a finished segment to the right, which copies it.", 12, y, 13,
                true, INK, START);
        y += 14;
        row(c, "start", y, held, sends(0, true));
        for (int s = 0; s < P - 1; s++) {
            int[] sent = sends(s, true);
            held = step(held, sent, false);
            y += ROW + ROW_GAP;
            row(c, "step " + (s + 1), y, held, s < P - 2 ? sends(s + 1, true) : null);
            moves(c, y - ROW_GAP, sent);
        }
        c.text("every rank holds every complete segment: the all-reduce is done", LEFT + 4 * (BLOCK + BLOCK_GAP)
                - BLOCK_GAP, y + ROW + 16, 12, false, GREY, END);
        return c.svg();
    }

    /** The segment each rank sends at step s (lesson 02's formulas). */
    static int[] sends(int s, boolean allGather) {
        int[] seg = new int[P];
        for (int r = 0; r < P; r++) seg[r] = Math.floorMod(allGather ? r - s : r - s - 1, P);
        return seg;
    }

    /** After one step: rank r + 1 adds (or copies) the segment rank r sent. */
    static int[][] step(int[][] held, int[] sent, boolean add) {
        int[][] next = new int[P][];
        for (int r = 0; r < P; r++) next[r] = held[r].clone();
        for (int r = 0; r < P; r++) {
            int to = (r + 1) % P, j = sent[r];
            next[to][j] = add ? held[to][j] | held[r][j] : held[r][j];
        }
        return next;
    }

    private static double block(int r) {
        return LEFT + r * (BLOCK + BLOCK_GAP);
    }

    private static double cell(int r, int j) {
        return block(r) + j * (CELL + CELL_GAP);
    }

    private static void legend(Canvas c) {
        c.text("Each rank's buffer is cut into 4 segments. Inside a segment, stripe k is rank k's numbers:", 12, 20, 12,
                START);
        double x = 12;
        for (int k = 0; k < P; k++) {
            c.rect(x, 30, 14, 14, RANKS.get(k));
            c.text("rank " + k, x + 19, 42, 12, START);
            x += 72;
        }
        segment(c, x + 14, 28, (1 << P) - 1, false);
        c.text("all four: the complete sum", x + 14 + CELL + 8, 42, 12, START);
        c.text("The ranks form a ring: 0 → 1 → 2 → 3 → 0.", 530, 42, 12, START);
        for (int r = 0; r < P; r++) {
            c.text("rank " + r, block(r) + BLOCK / 2, 70, 13, true, INK, MIDDLE);
            for (int j = 0; j < P; j++) c.text("seg " + j, cell(r, j) + CELL / 2, 86, 10, false, GREY, MIDDLE);
        }
    }

    /** One state: every rank's 4 segments; the ones about to be sent outlined in black. */
    private static void row(Canvas c, String label, double y, int[][] held, int[] next) {
        c.text(label, LEFT - 12, y + ROW / 2 + 4, 12, END);
        for (int r = 0; r < P; r++) {
            for (int j = 0; j < P; j++) segment(c, cell(r, j), y, held[r][j], next != null && next[r] == j);
        }
    }

    private static void segment(Canvas c, double x, double y, int bits, boolean sent) {
        double w = CELL / P;
        c.rect(x, y, CELL, ROW, Canvas.LIGHT);
        for (int k = 0; k < P; k++) {
            if ((bits & (1 << k)) != 0) c.rect(x + k * w, y, w, ROW, tint(RANKS.get(k), 0.1));
        }
        boolean complete = bits == (1 << P) - 1;
        c.outline(x, y, CELL, ROW, sent || complete ? INK : GREY, sent ? 2.2f : complete ? 1.4f : 0.8f);
    }

    /** The step's messages, from the row above (bottom edge at top) to the row below: rank r to rank r + 1. */
    private static void moves(Canvas c, double top, int[] sent) {
        double bottom = top + ROW_GAP, mid = top + ROW_GAP / 2;
        for (int r = 0; r < P - 1; r++) {
            double x1 = cell(r, sent[r]) + CELL / 2, x2 = cell(r + 1, sent[r]) + CELL / 2;
            c.arrow(x1, top + 2, x2, bottom - 2, INK, 1.3f);
        }
        // rank 3 to rank 0 goes round the ring: out on the right, back in on the left
        double x1 = cell(P - 1, sent[P - 1]) + CELL / 2, x2 = cell(0, sent[P - 1]) + CELL / 2;
        c.line(x1, top + 2, 795, mid, INK, 1.3f, true);
        c.arrow(LEFT - 6, mid, x2, bottom - 2, INK, 1.3f, true);
        c.text("from rank 3", LEFT - 10, mid + 4, 10, false, GREY, END);
    }
}
