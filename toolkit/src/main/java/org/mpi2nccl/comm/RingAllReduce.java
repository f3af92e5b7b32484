package org.mpi2nccl.comm;

/**
 * All-reduce around a ring, as NCCL's ring algorithm and Baidu's ring-allreduce do it: a reduce-scatter
 * followed by an all-gather. The buffer is cut into one segment per rank.
 *
 * <pre>
 *   reduce-scatter, step s (s = 0 .. p-2): send segment (r-s-1) to the right neighbour,
 *                                          receive segment (r-s-2) from the left one and add our own part.
 *   after p-1 steps rank r holds the complete sum of segment r.
 *   all-gather, step s (s = 0 .. p-2):     send segment (r-s) to the right, receive segment (r-s-1) from the left.
 * </pre>
 *
 * Each rank sends 2(p-1)/p of the buffer in total, whatever p is: that is why the ring's bandwidth does not
 * fall as ranks are added, and why nccl-tests' "bus bandwidth" multiplies by 2(p-1)/p.
 *
 * <p>Pipelining: within a reduce-scatter step the segment travels as chunks of {@link RingContext#chunkElems()}
 * elements; while chunk k is being added, chunks k+1 .. k+window-1 are already on the wire.
 */
public final class RingAllReduce {
    private RingAllReduce() {
    }

    /** {@code recv = op over ranks of send}; {@code send} and {@code recv} may be the same buffer. */
    public static void run(RingContext ctx, HostBuffer send, HostBuffer recv, Reduction op) {
        Segments segments = Segments.balanced(send.length(), ctx.size());
        reduceScatter(ctx, send, recv, segments, op);
        if (op == Reduction.AVG) {
            HostReduce.divide(segments.of(recv, ctx.rank()), ctx.size());
        }
        allGather(ctx, recv, segments);
    }

    /**
     * The first half: afterwards segment r of {@code acc} holds the reduction over all ranks of segment r of
     * their {@code own}. Other segments of {@code acc} hold partial sums (they are overwritten by the
     * all-gather). {@code own} is only read; {@code acc} may be {@code own}.
     */
    public static void reduceScatter(RingContext ctx, HostBuffer own, HostBuffer acc, Segments seg, Reduction op) {
        int p = ctx.size();
        int r = ctx.rank();
        for (int step = 0; step < p - 1; step++) {
            int sendSeg = ctx.mod(r - step - 1);
            int recvSeg = ctx.mod(r - step - 2);
            // What we pass on: our own contribution at the first step, afterwards the partial sum made at the last one.
            HostBuffer outgoing = seg.of(step == 0 ? own : acc, sendSeg);
            HostBuffer mine = seg.of(own, recvSeg);
            HostBuffer result = seg.of(acc, recvSeg);
            exchangeAndReduce(ctx, "reduce-scatter", step, sendSeg, outgoing, recvSeg, mine, result, op);
        }
    }

    /**
     * The second half: rank r starts with the finished segment r in {@code buf} and passes segments on around
     * the ring until every rank has all of them.
     */
    public static void allGather(RingContext ctx, HostBuffer buf, Segments seg) {
        int p = ctx.size();
        int r = ctx.rank();
        for (int step = 0; step < p - 1; step++) {
            int sendSeg = ctx.mod(r - step);
            int recvSeg = ctx.mod(r - step - 1);
            HostBuffer outgoing = seg.of(buf, sendSeg);
            HostBuffer incoming = seg.of(buf, recvSeg);
            long t0 = System.nanoTime();
            Transport.Pending in = ctx.transport().irecv(incoming, ctx.left(), ctx.tag());
            Transport.Pending out = ctx.transport().isend(outgoing, ctx.right(), ctx.tag());
            ctx.await(in);
            ctx.trace("all-gather", step, recvSeg, 0, "recv", ctx.left(), incoming.bytes(), t0);
            ctx.await(out);
            ctx.trace("all-gather", step, sendSeg, 0, "send", ctx.right(), outgoing.bytes(), t0);
        }
    }

    /**
     * One reduce-scatter step, pipelined: send {@code outgoing} to the right in chunks, receive the left
     * neighbour's chunks of segment {@code recvSeg} and store {@code incoming + mine} into {@code result}.
     * At most {@code window} chunks are in flight each way: receives are posted ahead into reusable slots,
     * and a new send waits for the one {@code window} places before it.
     */
    static void exchangeAndReduce(RingContext ctx, String phase, int step, int sendSeg, HostBuffer outgoing,
                                  int recvSeg, HostBuffer mine, HostBuffer result, Reduction op) {
        Transport t = ctx.transport();
        int chunk = ctx.chunkElems();
        int window = ctx.window();
        int nOut = chunks(outgoing.length(), chunk);
        int nIn = chunks(mine.length(), chunk);

        HostBuffer[] slots = new HostBuffer[Math.max(1, Math.min(window, nIn))];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = ctx.scratch().get(i, mine.dataType(), chunk);
        }
        Transport.Pending[] recvs = new Transport.Pending[nIn];
        long[] recvPosted = new long[nIn];
        for (int c = 0; c < Math.min(slots.length, nIn); c++) {
            recvPosted[c] = System.nanoTime();
            recvs[c] = t.irecv(slots[c].slice(0, chunkLength(mine.length(), c, chunk)), ctx.left(), ctx.tag());
        }
        Transport.Pending[] sends = new Transport.Pending[nOut];
        long[] sendPosted = new long[nOut];
        for (int c = 0; c < Math.max(nOut, nIn); c++) {
            if (c < nOut) {
                if (c >= window) {
                    ctx.await(sends[c - window]);
                    traceSend(ctx, phase, step, sendSeg, outgoing, c - window, sendPosted);
                }
                sendPosted[c] = System.nanoTime();
                sends[c] = t.isend(slice(outgoing, c, chunk), ctx.right(), ctx.tag());
            }
            if (c < nIn) {
                ctx.await(recvs[c]);
                ctx.trace(phase, step, recvSeg, c, "recv", ctx.left(), (long) chunkLength(mine.length(), c, chunk)
                        * mine.dataType().bytes(), recvPosted[c]);
                HostBuffer incoming = slots[c % slots.length].slice(0, chunkLength(mine.length(), c, chunk));
                HostReduce.apply(op, incoming, slice(mine, c, chunk), slice(result, c, chunk));
                int next = c + slots.length;
                if (next < nIn) {
                    // The slot just consumed takes the chunk `window` places ahead: the pipe stays full.
                    recvPosted[next] = System.nanoTime();
                    recvs[next] = t.irecv(slots[next % slots.length].slice(0, chunkLength(mine.length(), next, chunk)),
                            ctx.left(), ctx.tag());
                }
            }
        }
        for (int c = Math.max(0, nOut - window); c < nOut; c++) {
            ctx.await(sends[c]);
            traceSend(ctx, phase, step, sendSeg, outgoing, c, sendPosted);
        }
    }

    private static void traceSend(RingContext ctx, String phase, int step, int seg, HostBuffer outgoing, int c, long[] posted) {
        int chunk = ctx.chunkElems();
        ctx.trace(phase, step, seg, c, "send", ctx.right(),
                (long) chunkLength(outgoing.length(), c, chunk) * outgoing.dataType().bytes(), posted[c]);
    }

    static int chunks(int length, int chunk) {
        return (length + chunk - 1) / chunk;
    }

    static int chunkLength(int length, int c, int chunk) {
        return Math.min(chunk, length - c * chunk);
    }

    static HostBuffer slice(HostBuffer b, int c, int chunk) {
        return b.slice((long) c * chunk, chunkLength(b.length(), c, chunk));
    }
}
