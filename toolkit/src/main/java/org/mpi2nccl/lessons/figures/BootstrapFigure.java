package org.mpi2nccl.lessons.figures;

import static org.mpi2nccl.lessons.figures.Canvas.Anchor.END;
import static org.mpi2nccl.lessons.figures.Canvas.Anchor.MIDDLE;
import static org.mpi2nccl.lessons.figures.Canvas.GREY;
import static org.mpi2nccl.lessons.figures.Canvas.INK;
import static org.mpi2nccl.lessons.figures.Canvas.LIGHT;
import static org.mpi2nccl.lessons.figures.Canvas.RANKS;
import static org.mpi2nccl.lessons.figures.Canvas.YELLOW;
import static org.mpi2nccl.lessons.figures.Canvas.tint;

import java.util.List;

/**
 * NCCL's bootstrap (lesson 04): rank 0 makes the unique id, a channel that already exists carries it to the other
 * ranks, every rank joins with ncclCommInitRank, and from then on the collectives run between the GPUs.
 */
final class BootstrapFigure {
    static final String NAME = "nccl-bootstrap";
    private static final int N = 4, LEFT = 150, COL = 150, GAP = 10;
    private static final java.awt.Color ID = tint(YELLOW, 0.35);

    private BootstrapFigure() {}

    private static double col(int r) {
        return LEFT + r * (COL + GAP);
    }

    private static double mid(int r) {
        return col(r) + COL / 2.0;
    }

    static String svg() {
        Canvas c = new Canvas(800, 520, "NCCL's bootstrap on 4 ranks",
                "1. Rank 0 calls ncclGetUniqueId and gets a 128-byte unique id. 2. The id goes to every other rank"
                        + " over a channel that already exists: MPI's Bcast (as in lesson 04), a TCP rendezvous at"
                        + " host:port, or a file on a shared file system. 3. Every rank calls ncclCommInitRank(&comm,"
                        + " size, id, rank); the call returns once all ranks have joined. 4. Collectives such as"
                        + " ncclAllReduce then run between the GPUs, over NVLink or the network.");
        double right = col(N - 1) + COL;
        for (int r = 0; r < N; r++) {
            c.text("rank " + r, mid(r), 20, 13, true, INK, MIDDLE);
            c.rect(col(r) + 4, 28, COL - 8, 4, RANKS.get(r));
        }

        // 1. rank 0 alone makes the id
        c.lines(List.of("1. rank 0 makes", "the unique id"), LEFT - 14, 62, 12, 15, END);
        c.box(col(0) + 4, 46, COL - 8, 30, LIGHT, INK);
        c.code("ncclGetUniqueId", mid(0), 66, 12, true, MIDDLE);
        c.arrow(mid(0), 78, mid(0), 92, INK, 1.3f);
        idToken(c, 0, 94);
        for (int r = 1; r < N; r++) c.text("waits for the id", mid(r), 66, 12, false, GREY, MIDDLE);

        // 2. out of band: a channel NCCL does not provide
        c.lines(List.of("2. share it out of", "band (not NCCL)"), LEFT - 14, 150, 12, 15, END);
        c.box(col(1) - 4, 126, right - col(1) + 8, 60, tint(GREY, 0.9), GREY);
        c.text("any channel the ranks already share:", (col(1) + right) / 2, 142, 12, true, INK, MIDDLE);
        c.code("MPI Bcast, 128 bytes", mid(1), 162, 12, false, MIDDLE);
        c.code("tcp://host:port", mid(2), 162, 12, false, MIDDLE);
        c.code("file://shared/path", mid(3), 162, 12, false, MIDDLE);
        c.text("(this course)", mid(1), 178, 11, false, GREY, MIDDLE);
        c.text("rank 0 listens", mid(2), 178, 11, false, GREY, MIDDLE);
        c.text("shared file system", mid(3), 178, 11, false, GREY, MIDDLE);
        c.line(mid(0), 120, mid(0), 196, INK, 1.3f, false);
        for (int r = 1; r < N; r++) {
            c.line(mid(0), 196, mid(r) - 10, 196, INK, 1.3f, false);
            c.arrow(mid(r) - 10, 196, mid(r), 212, INK, 1.3f);
            idToken(c, r, 214);
        }
        idToken(c, 0, 214);

        // 3. every rank joins; the call returns when all have
        c.lines(List.of("3. every rank", "joins"), LEFT - 14, 276, 12, 15, END);
        for (int r = 0; r < N; r++) {
            c.arrow(mid(r), 242, mid(r), 256, INK, 1.3f);
            c.box(col(r) + 4, 258, COL - 8, 40, LIGHT, INK);
            c.code("ncclCommInitRank", mid(r), 274, 12, true, MIDDLE);
            c.code("(&comm, 4, id, " + r + ")", mid(r), 290, 12, false, MIDDLE);
        }
        c.box(LEFT, 306, right - LEFT, 22, tint(GREY, 0.85), null);
        c.text("returns on every rank once all 4 have joined (or fails at the timeout, naming who is missing)",
                (LEFT + right) / 2, 321, 12, MIDDLE);

        // 4. the collectives, GPU to GPU
        c.lines(List.of("4. collectives", "on the GPUs"), LEFT - 14, 396, 12, 15, END);
        for (int r = 0; r < N; r++) {
            c.arrow(mid(r), 330, mid(r), 368, INK, 1.3f);
            c.box(col(r) + 20, 370, COL - 40, 44, tint(RANKS.get(r), 0.75), RANKS.get(r));
            c.text("GPU " + r, mid(r), 388, 13, true, INK, MIDDLE);
            c.code("ncclAllReduce", mid(r), 405, 11, false, MIDDLE);
            if (r < N - 1) c.arrow(col(r) + COL - 20, 392, col(r + 1) + 20, 392, INK, 1.6f);
        }
        // the ring closes from the last GPU back to the first
        c.line(mid(N - 1), 414, mid(N - 1), 430, INK, 1.6f, false);
        c.line(mid(N - 1), 430, mid(0), 430, INK, 1.6f, false);
        c.arrow(mid(0), 430, mid(0), 416, INK, 1.6f);
        c.text("over NVLink or the network: no MPI in the data path", (LEFT + right) / 2, 448, 12, false, GREY, MIDDLE);
        c.text("MPI (or TCP, or a file) only carried the 128-byte id; NCCL moves the data itself.", (LEFT + right) / 2,
                500, 13, true, INK, MIDDLE);
        return c.svg();
    }

    /** The unique id: the same 128 bytes on whichever rank holds it. */
    private static void idToken(Canvas c, int r, double y) {
        c.box(mid(r) - 48, y, 96, 22, ID, INK);
        c.text("id: 128 bytes", mid(r), y + 15, 11, true, INK, MIDDLE);
    }
}
