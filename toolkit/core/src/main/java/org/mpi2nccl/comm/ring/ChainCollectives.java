package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.HostReduce;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Transport;

/**
 * Broadcast and reduce as pipelined chains along the ring: the data flows from the root to its right
 * neighbour and on (broadcast), or from the root's right neighbour towards the root, being added to at each
 * rank (reduce). Chunking lets rank k forward chunk c while chunk c+1 is still arriving, so the time is about
 * one buffer transfer plus (p-2) chunk transfers, not (p-1) buffer transfers. The ring communicator's broadcast
 * and reduce (lesson 02's toolkit); the chunk helpers are {@link RingAllReduce}'s.
 */
public final class ChainCollectives {
    private ChainCollectives() {
    }

    /** {@code recv = send of root} on every rank. */
    public static void broadcast(RingAllReduce.Ring ctx, HostBuffer send, HostBuffer recv, int root) {
        Transport t = ctx.transport();
        int p = ctx.size();
        int position = ctx.mod(ctx.rank() - root);       // 0 = root, p-1 = end of the chain
        int chunk = ctx.chunkElems();
        int n = RingAllReduce.chunks(recv.length(), chunk);
        // The observer labels a rank's messages with its place on the chain: it receives and forwards at hop `position`.
        ctx.observer().step("broadcast", position, 0, position == 0 ? -1 : 0);
        if (position == 0) {
            if (!send.sameAs(recv)) {
                send.copyTo(recv);
            }
            Transport.Pending[] sends = new Transport.Pending[n];
            for (int c = 0; c < n; c++) {
                sends[c] = t.isend(RingAllReduce.slice(recv, c, chunk), ctx.right(), ctx.tag());
            }
            ctx.await(sends);
            return;
        }
        boolean forward = position < p - 1;
        Transport.Pending[] recvs = new Transport.Pending[n];
        Transport.Pending[] sends = new Transport.Pending[n];
        for (int c = 0; c < n; c++) {                      // receive straight into place: no copies
            recvs[c] = t.irecv(RingAllReduce.slice(recv, c, chunk), ctx.left(), ctx.tag());
        }
        for (int c = 0; c < n; c++) {
            ctx.await(recvs[c]);
            if (forward) {
                sends[c] = t.isend(RingAllReduce.slice(recv, c, chunk), ctx.right(), ctx.tag());
            }
        }
        if (forward) {
            ctx.await(sends);
        }
    }

    /** {@code recv = op over ranks of send} on the root; {@code recv} is not touched elsewhere. */
    public static void reduce(RingAllReduce.Ring ctx, HostBuffer send, HostBuffer recv, Reduction op, int root) {
        Transport t = ctx.transport();
        int p = ctx.size();
        int position = ctx.mod(ctx.rank() - root - 1);   // 0 = start of the chain (root + 1), p-1 = root
        int chunk = ctx.chunkElems();
        int length = send.length();
        int n = RingAllReduce.chunks(length, chunk);
        ctx.observer().step("reduce", position, 0, position == 0 ? -1 : 0);
        if (position == 0) {
            Transport.Pending[] sends = new Transport.Pending[n];
            for (int c = 0; c < n; c++) {
                sends[c] = t.isend(RingAllReduce.slice(send, c, chunk), ctx.right(), ctx.tag());
            }
            ctx.await(sends);
            return;
        }
        boolean isRoot = position == p - 1;
        // Partial sums: into recv on the root, into scratch elsewhere (it must outlive the sends of it).
        HostBuffer acc = isRoot ? recv : ctx.scratch().get(0, send.dataType(), length);
        int window = Math.min(ctx.window(), n);
        HostBuffer[] slots = new HostBuffer[window];
        for (int i = 0; i < window; i++) {
            slots[i] = ctx.scratch().get(1 + i, send.dataType(), chunk);
        }
        Transport.Pending[] recvs = new Transport.Pending[n];
        Transport.Pending[] sends = new Transport.Pending[n];
        for (int c = 0; c < window; c++) {
            recvs[c] = t.irecv(slots[c].slice(0, RingAllReduce.chunkLength(length, c, chunk)), ctx.left(), ctx.tag());
        }
        for (int c = 0; c < n; c++) {
            ctx.await(recvs[c]);
            HostBuffer in = slots[c % window].slice(0, RingAllReduce.chunkLength(length, c, chunk));
            HostBuffer out = RingAllReduce.slice(acc, c, chunk);
            HostReduce.apply(op, in, RingAllReduce.slice(send, c, chunk), out);
            if (!isRoot) {
                sends[c] = t.isend(out, ctx.right(), ctx.tag());
            }
            if (c + window < n) {
                int next = c + window;
                recvs[next] = t.irecv(slots[next % window].slice(0, RingAllReduce.chunkLength(length, next, chunk)),
                        ctx.left(), ctx.tag());
            }
        }
        if (isRoot) {
            if (op == Reduction.AVG) {
                HostReduce.divide(recv, p);
            }
        } else {
            ctx.await(sends);
        }
    }
}
