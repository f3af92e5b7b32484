package org.mpi2nccl.comm;

/**
 * The all-reduce anyone writes first: every rank sends its whole buffer to rank 0, rank 0 adds them up and
 * sends the result back to everyone. Correct, and a good yardstick: rank 0 receives and sends (p-1) whole
 * buffers, so its link carries 2(p-1)x the data and the time grows with the number of ranks, while the
 * ring's stays flat.
 */
public final class NaiveAllReduce {
    private NaiveAllReduce() {
    }

    public static void run(RingContext ctx, HostBuffer send, HostBuffer recv, Reduction op) {
        Transport t = ctx.transport();
        int p = ctx.size();
        if (ctx.rank() == 0) {
            if (!send.sameAs(recv)) {
                send.copyTo(recv);
            }
            HostBuffer incoming = ctx.scratch().get(0, send.dataType(), send.length());
            for (int peer = 1; peer < p; peer++) {               // 1. reduce: collect everyone's buffer, in rank order
                long t0 = System.nanoTime();
                ctx.await(t.irecv(incoming, peer, ctx.tag()));
                ctx.trace("reduce", peer - 1, peer, 0, "recv", peer, incoming.bytes(), t0);
                HostReduce.apply(op, recv, incoming, recv);
            }
            if (op == Reduction.AVG) {
                HostReduce.divide(recv, p);
            }
            Transport.Pending[] sends = new Transport.Pending[p - 1];
            long t0 = System.nanoTime();
            for (int peer = 1; peer < p; peer++) {               // 2. broadcast: send the result to everyone
                sends[peer - 1] = t.isend(recv, peer, ctx.tag());
            }
            ctx.await(sends);
            for (int peer = 1; peer < p; peer++) {
                ctx.trace("broadcast", peer - 1, 0, 0, "send", peer, recv.bytes(), t0);
            }
        } else {
            long t0 = System.nanoTime();
            ctx.await(t.isend(send, 0, ctx.tag()));
            ctx.trace("reduce", ctx.rank() - 1, ctx.rank(), 0, "send", 0, send.bytes(), t0);
            t0 = System.nanoTime();
            ctx.await(t.irecv(recv, 0, ctx.tag()));
            ctx.trace("broadcast", ctx.rank() - 1, 0, 0, "recv", 0, recv.bytes(), t0);
        }
    }
}
