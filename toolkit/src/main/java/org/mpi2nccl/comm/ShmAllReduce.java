package org.mpi2nccl.comm;

/**
 * The all-reduce that shared memory makes possible: every rank writes its buffer where every other rank can read
 * it ({@link ShmBoard}), waits once for the others, and adds all of them up itself. One exchange instead of the
 * ring's 2(p-1) steps, the way Open MPI's shared-memory collectives and NCCL's small-message algorithms do it.
 * Lesson 02's ring ({@link RingAllReduce}) sends each rank 2(p-1)/p of the buffer because a network link is the
 * bottleneck; within one machine the bottleneck is memory and every wait costs a scheduling round, so fewer
 * steps win: on 2 ranks both move the same bytes, and the exchange waits once per slot instead of twice per step.
 *
 * <p>Large buffers go through in slot-sized blocks. Every rank adds the terms in rank order 0, 1, ..., p-1, so
 * all ranks get bit-identical results, as the ring's all-gather guarantees.
 */
final class ShmAllReduce {
    /** Elements added per pass: small enough that the two terms stay in the first-level cache. */
    private static final int PASS_BYTES = 16 * 1024;

    private ShmAllReduce() {
    }

    /** {@code recv = op over ranks of send}; {@code send} and {@code recv} may be the same buffer. */
    static void run(ShmBoard board, RingAllReduce.Ring ring, HostBuffer send, HostBuffer recv, Reduction op) {
        int block = board.slotElems(send.dataType());
        for (int from = 0; from < send.length(); from += block) {
            int n = Math.min(block, send.length() - from);
            HostBuffer mine = send.slice(from, n);
            HostBuffer out = recv.slice(from, n);
            long k = board.post(mine);
            int missing = board.awaitAll(k, ring.deadline());
            if (missing >= 0) {
                throw new CollectiveTimeoutException(ring.rank(), ring.call(), ring.deadline().timeout(),
                        "rank " + missing + "'s block " + k + " of the shared-memory all-reduce");
            }
            reduce(board, ring, k, mine, out, op);
        }
        if (op == Reduction.AVG) {
            HostReduce.divide(recv, ring.size());
        }
    }

    /**
     * {@code out = block k of rank 0 op ... op rank p-1}, a cache-sized pass at a time, added in two scratch blocks
     * at offset 0 (the loop shape the JIT vectorises, see {@link HostReduce}): copying a block in and out of the
     * first-level cache costs less than adding it one element at a time. {@code out} is written only at the end of
     * a pass, so this rank's own term can always come from {@code mine}, in place or not.
     */
    private static void reduce(ShmBoard board, RingAllReduce.Ring ring, long k, HostBuffer mine, HostBuffer out,
                               Reduction op) {
        int me = ring.rank();
        int pass = Math.max(1, PASS_BYTES / mine.dataType().bytes());
        HostBuffer accBlock = ring.scratch().get(0, mine.dataType(), pass);
        HostBuffer termBlock = ring.scratch().get(1, mine.dataType(), pass);
        for (int at = 0; at < mine.length(); at += pass) {
            int n = Math.min(pass, mine.length() - at);
            HostBuffer acc = term(board, me, 0, k, mine, at, accBlock.slice(0, n));
            HostBuffer term = termBlock.slice(0, n);
            for (int q = 1; q < board.ranks(); q++) {
                HostReduce.apply(op, acc, term(board, me, q, k, mine, at, term), acc);
            }
            acc.copyTo(out.slice(at, n));
        }
    }

    /** Rank {@code q}'s elements [at, at + n) of block k, copied into {@code into}. */
    private static HostBuffer term(ShmBoard board, int me, int q, long k, HostBuffer mine, int at, HostBuffer into) {
        if (q == me) {
            mine.slice(at, into.length()).copyTo(into);
        } else {
            board.read(q, k, at, into);
        }
        return into;
    }
}
