package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.HostReduce;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ScratchBuffers;
import org.mpi2nccl.comm.Transport;

/**
 * Lesson 02: the ring all-reduce, as NCCL's ring algorithm and Baidu's ring-allreduce run it. Read this file
 * top to bottom; it needs only {@link Transport} (non-blocking send and receive between ranks).
 *
 * <p>The ranks stand in a ring: each sends only to its right neighbour and receives only from its left one.
 * The buffer is cut into p segments, one per rank. The all-reduce is two halves of p-1 steps each:
 * <pre>
 *   reduce-scatter, step s (s = 0 .. p-2): send segment (r-s-1) to the right,
 *                                          receive segment (r-s-2) from the left and add our own part to it.
 *   after p-1 steps rank r holds the complete sum of segment r.
 *   all-gather, step s (s = 0 .. p-2):     send segment (r-s) to the right, receive segment (r-s-1) from the left.
 * </pre>
 * Each half sends p-1 segments of size n/p, so each rank sends 2(p-1)/p of the buffer in total, whatever p is.
 * That is why the ring's time hardly grows as ranks are added, and why nccl-tests' "bus bandwidth" multiplies
 * by 2(p-1)/p.
 *
 * <p>Pipelining: within a reduce-scatter step the segment travels as chunks of {@link Ring#chunkElems()}
 * elements, and while chunk k is being added, chunks k+1 .. k+window-1 are already on the wire
 * ({@link #exchangeAndReduce}). The all-gather only copies, so it sends each segment whole.
 *
 * <p>Over shared memory {@link RingCommunicator} runs {@link ShmAllReduce} instead, which says what it adds.
 *
 * <p>The algorithm keeps no records: whoever wants to watch it (lesson 02's step chart, {@link RingTrace})
 * passes a {@link RingObserver}, which is told the step before each one. {@link RingCommunicator} wraps this
 * as a communicator (timeouts, GPU buffers, the other collectives).
 */
public final class RingAllReduce {
    private RingAllReduce() {
    }

    /** {@code recv = op over ranks of send}; {@code send} and {@code recv} may be the same buffer. */
    public static void run(Ring ring, HostBuffer send, HostBuffer recv, Reduction op) {
        Segments segments = Segments.balanced(send.length(), ring.size());
        reduceScatter(ring, send, recv, segments, op);
        if (op == Reduction.AVG) {
            HostReduce.divide(segments.of(recv, ring.rank()), ring.size());
        }
        allGather(ring, recv, segments);
    }

    /**
     * The first half: afterwards segment r of {@code acc} holds the reduction over all ranks of segment r of
     * their {@code own}. Other segments of {@code acc} hold partial sums (the all-gather overwrites them).
     * {@code own} is only read; {@code acc} may be {@code own}.
     */
    public static void reduceScatter(Ring ring, HostBuffer own, HostBuffer acc, Segments seg, Reduction op) {
        int r = ring.rank();
        for (int step = 0; step < ring.size() - 1; step++) {
            int sendSeg = ring.mod(r - step - 1);
            int recvSeg = ring.mod(r - step - 2);
            ring.observer().step("reduce-scatter", step, sendSeg, recvSeg);
            // What we pass on: our own contribution at the first step, afterwards the partial sum made at the last one.
            HostBuffer outgoing = seg.of(step == 0 ? own : acc, sendSeg);
            exchangeAndReduce(ring, outgoing, seg.of(own, recvSeg), seg.of(acc, recvSeg), op);
        }
    }

    /**
     * The second half: rank r starts with the finished segment r in {@code buf} and passes segments on around
     * the ring until every rank has all of them.
     */
    public static void allGather(Ring ring, HostBuffer buf, Segments seg) {
        int r = ring.rank();
        for (int step = 0; step < ring.size() - 1; step++) {
            int sendSeg = ring.mod(r - step);
            int recvSeg = ring.mod(r - step - 1);
            ring.observer().step("all-gather", step, sendSeg, recvSeg);
            Transport.Pending in = ring.transport().irecv(seg.of(buf, recvSeg), ring.left(), ring.tag());
            Transport.Pending out = ring.transport().isend(seg.of(buf, sendSeg), ring.right(), ring.tag());
            ring.await(in);
            ring.await(out);
        }
    }

    /**
     * One reduce-scatter step, pipelined: send {@code outgoing} to the right in chunks, receive the left
     * neighbour's chunks of the same segment and store {@code incoming + mine} into {@code result}.
     * At most {@code window} chunks are in flight each way: receives are posted ahead into reusable slots,
     * and a new send waits for the one {@code window} places before it.
     */
    static void exchangeAndReduce(Ring ring, HostBuffer outgoing, HostBuffer mine, HostBuffer result, Reduction op) {
        Transport t = ring.transport();
        int chunk = ring.chunkElems();
        int window = ring.window();
        int nOut = chunks(outgoing.length(), chunk);
        int nIn = chunks(mine.length(), chunk);

        // Receive slots, posted ahead: chunk c lands in slot c % slots.length.
        HostBuffer[] slots = new HostBuffer[Math.max(1, Math.min(window, nIn))];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = ring.scratch().get(i, mine.dataType(), chunk);
        }
        Transport.Pending[] recvs = new Transport.Pending[nIn];
        for (int c = 0; c < Math.min(slots.length, nIn); c++) {
            recvs[c] = t.irecv(slot(slots, mine, c, chunk), ring.left(), ring.tag());
        }
        Transport.Pending[] sends = new Transport.Pending[nOut];
        for (int c = 0; c < Math.max(nOut, nIn); c++) {
            if (c < nOut) {
                if (c >= window) {
                    ring.await(sends[c - window]);
                }
                sends[c] = t.isend(slice(outgoing, c, chunk), ring.right(), ring.tag());
            }
            if (c < nIn) {
                ring.await(recvs[c]);
                HostReduce.apply(op, slot(slots, mine, c, chunk), slice(mine, c, chunk), slice(result, c, chunk));
                int next = c + slots.length;
                if (next < nIn) {
                    // The slot just consumed takes the chunk `window` places ahead: the pipe stays full.
                    recvs[next] = t.irecv(slot(slots, mine, next, chunk), ring.left(), ring.tag());
                }
            }
        }
        for (int c = Math.max(0, nOut - window); c < nOut; c++) {
            ring.await(sends[c]);
        }
    }

    /** The slot chunk {@code c} of {@code b} is received into, cut to that chunk's length. */
    private static HostBuffer slot(HostBuffer[] slots, HostBuffer b, int c, int chunk) {
        return slots[c % slots.length].slice(0, chunkLength(b.length(), c, chunk));
    }

    static int chunks(int length, int chunk) {
        return (length + chunk - 1) / chunk;
    }

    static int chunkLength(int length, int c, int chunk) {
        return Math.min(chunk, length - c * chunk);
    }

    /** Chunk {@code c} of {@code b}. */
    static HostBuffer slice(HostBuffer b, int c, int chunk) {
        return b.slice((long) c * chunk, chunkLength(b.length(), c, chunk));
    }

    /**
     * One rank's place in the ring for one collective: the transport, the call (for error messages) and its
     * deadline, the message tag, the pipelining settings, reusable scratch memory and the observer.
     *
     * @param chunkElems elements per pipelined message
     * @param window     messages in flight each way while one is being reduced
     */
    public record Ring(Transport transport, CollectiveCall call, Deadline deadline, int tag, int chunkElems,
                       int window, ScratchBuffers scratch, RingObserver observer) {

        public int rank() {
            return transport.rank();
        }

        public int size() {
            return transport.size();
        }

        /** The rank after this one on the ring. */
        public int right() {
            return (rank() + 1) % size();
        }

        /** The rank before this one on the ring. */
        public int left() {
            return (rank() - 1 + size()) % size();
        }

        /** {@code i mod size}, always in 0..size-1. */
        public int mod(int i) {
            return Math.floorMod(i, size());
        }

        /** Waits for the transfers; a timeout error at the deadline names what never came. */
        public void await(Transport.Pending... transfers) {
            transport.await(deadline, call, transfers);
        }
    }

    /**
     * How a buffer is cut into one segment per rank: {@link #balanced} for all-reduce (any count, the first
     * {@code count % parts} segments one element longer), {@link #equal} for all-gather and reduce-scatter
     * (blocks of the same size).
     */
    public static final class Segments {
        private final int base;
        private final int extra;

        private Segments(int base, int extra) {
            this.base = base;
            this.extra = extra;
        }

        public static Segments balanced(int count, int parts) {
            return new Segments(count / parts, count % parts);
        }

        public static Segments equal(int block) {
            return new Segments(block, 0);
        }

        /** Segment {@code i} of {@code buffer}. */
        public HostBuffer of(HostBuffer buffer, int i) {
            return buffer.slice(i * base + Math.min(i, extra), base + (i < extra ? 1 : 0));
        }
    }
}
