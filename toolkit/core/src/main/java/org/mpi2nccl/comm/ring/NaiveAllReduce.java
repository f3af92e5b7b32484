package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.HostReduce;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Transport;

/**
 * Lesson 02's first all-reduce, the one anyone writes first: every rank sends its whole buffer to rank 0, rank 0
 * adds them up and sends the result back to everyone. Correct, and a good yardstick: rank 0 receives and sends
 * (p-1) whole buffers, so its link carries 2(p-1)x the data and the time grows with the number of ranks, while
 * the ring's ({@link RingAllReduce}) stays flat.
 */
public final class NaiveAllReduce {
    private NaiveAllReduce() {
    }

    public static void run(RingAllReduce.Ring ring, HostBuffer send, HostBuffer recv, Reduction op) {
        Transport t = ring.transport();
        int p = ring.size();
        int r = ring.rank();
        if (r == 0) {
            if (!send.sameAs(recv)) {
                send.copyTo(recv);
            }
            HostBuffer incoming = ring.scratch().get(0, send.dataType(), send.length());
            for (int peer = 1; peer < p; peer++) {               // 1. reduce: collect everyone's buffer, in rank order
                ring.observer().step("reduce", peer - 1, -1, peer);
                ring.await(t.irecv(incoming, peer, ring.tag()));
                HostReduce.apply(op, recv, incoming, recv);
            }
            if (op == Reduction.AVG) {
                HostReduce.divide(recv, p);
            }
            Transport.Pending[] sends = new Transport.Pending[p - 1];
            for (int peer = 1; peer < p; peer++) {               // 2. broadcast: send the result to everyone
                ring.observer().step("broadcast", peer - 1, 0, -1);
                sends[peer - 1] = t.isend(recv, peer, ring.tag());
            }
            ring.await(sends);
        } else {
            ring.observer().step("reduce", r - 1, r, -1);
            ring.await(t.isend(send, 0, ring.tag()));
            ring.observer().step("broadcast", r - 1, -1, 0);
            ring.await(t.irecv(recv, 0, ring.tag()));
        }
    }
}
