package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.HostReduce;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.shm.ShmBoard;
import org.mpi2nccl.comm.shm.ShmTransport;

import org.mpi2nccl.comm.ring.RingAllReduce.Ring;
import org.mpi2nccl.comm.ring.RingAllReduce.Segments;

/**
 * The all-reduce that shared memory makes possible, used by {@link RingCommunicator} when its ranks share a machine
 * ({@link ShmTransport}). Lesson 02's ring ({@link RingAllReduce}) passes segments from neighbour to neighbour in
 * 2(p-1) steps because a network link is the bottleneck; within one machine every rank can read every other rank's
 * memory ({@link ShmBoard}), the bottleneck is memory, and every wait for another rank costs a round of scheduling.
 * So this class adds three things to the ring's idea:
 * <ul>
 *   <li>Small buffers: one exchange. Every rank writes its buffer to its board, waits once, and adds all the boards
 *       up itself. The check that all ranks make the same call travels in the same post ({@link ShmBoard#post}), so
 *       a call waits for the other ranks exactly once.</li>
 *   <li>Large buffers: the ring's two halves without the ring. Reduce-scatter: every rank writes the p-1 segments
 *       the others own, waits, and adds up its own segment from all boards. All-gather: it writes that result next
 *       to them, waits, and copies the others' results. Each rank adds and copies 1/p of the buffer instead of all
 *       of it, at the price of a second wait.</li>
 *   <li>Memory that stays in the caches: the buffer travels in blocks of {@link ShmBoard#BLOCK_BYTES}, each through the
 *       board's slot that the block before did not use (see {@link ShmBoard}).</li>
 * </ul>
 * Every segment is added in rank order 0, 1, ..., p-1, so every rank gets bit-identical results whichever way the
 * buffer went, as the ring's all-gather guarantees.
 *
 * <p>The sizes below were chosen by measuring two ranks on a 2-core machine (alternating variants, medians).
 */
final class ShmAllReduce {
    /** Elements added per pass: small enough that the two terms stay in the first-level cache. */
    private static final int PASS_BYTES = 16 * 1024;
    /**
     * From this size on a block goes as reduce-scatter + all-gather: each rank then adds and copies 1/p of the block
     * instead of all of it, which outweighs the second wait once the additions cost more than a wait; below it one
     * exchange's single wait is cheaper. (results/cpu-allreduce/tried has one exchange up to 1 MiB tried against it.)
     */
    static final int HALVES_FROM_BYTES = 64 * 1024;

    private ShmAllReduce() {
    }

    /**
     * {@code recv = op over ranks of send}; {@code send} and {@code recv} may be the same buffer. {@code checkCalls}:
     * compare every rank's call in the first exchange ({@link RingCommunicator.Builder#verifyCalls}).
     */
    static void run(ShmBoard board, Ring ring, boolean checkCalls, HostBuffer send, HostBuffer recv, Reduction op) {
        int bytes = send.dataType().bytes();
        int block = Math.max(1, Math.min(ShmBoard.BLOCK_BYTES, board.maxRegionBytes()) / bytes);
        int from = 0;
        do {                                   // an empty buffer still exchanges once: the calls are checked
            int n = Math.min(block, send.length() - from);
            HostBuffer mine = send.slice(from, n);
            HostBuffer out = recv.slice(from, n);
            boolean check = checkCalls && from == 0;
            if ((long) n * bytes < HALVES_FROM_BYTES) {
                oneExchange(board, ring, check, mine, out, op);
            } else {
                reduceScatterAllGather(board, ring, check, mine, out, op);
            }
            from += n;
        } while (from < send.length());
    }

    /** Every rank posts its whole block, waits once, and reduces all of it. */
    private static void oneExchange(ShmBoard board, Ring ring, boolean check, HostBuffer mine, HostBuffer out,
                                    Reduction op) {
        int region = board.claim(mine.length() * mine.dataType().bytes());
        board.write(region, mine, 0, mine.length());
        long k = board.exchange(ring.call(), check, region, ring.deadline(), "the all-reduce's block");
        reduce(board, ring, regions(board, ring, k), 0, mine, out, op, -1);
    }

    /**
     * Reduce-scatter: rank r posts the segments the others own and reduces segment r from all boards; all-gather:
     * it posts its result in its own region's segment r (which no other rank reads in the first half) and copies the
     * others' results.
     */
    private static void reduceScatterAllGather(ShmBoard board, Ring ring, boolean check, HostBuffer mine,
                                               HostBuffer out, Reduction op) {
        int p = ring.size();
        int me = ring.rank();
        int bytes = mine.dataType().bytes();
        Segments seg = Segments.balanced(mine.length(), p);
        int region = board.claim(mine.length() * bytes);
        for (int q = 0; q < p; q++) {
            if (q != me) {
                board.write(region + start(seg, mine, q) * bytes, mine, start(seg, mine, q), seg.of(mine, q).length());
            }
        }
        long k = board.exchange(ring.call(), check, region, ring.deadline(), "the all-reduce's reduce-scatter");
        int myStart = start(seg, mine, me);
        reduce(board, ring, regions(board, ring, k), myStart, seg.of(mine, me), seg.of(out, me), op, region);
        // The regions as post k+1 gives them: a peer may already have posted k+2 over post k's header.
        long k2 = board.exchange(ring.call(), false, region, ring.deadline(), "the all-reduce's all-gather");
        for (int q = 0; q < p; q++) {
            if (q != me) {
                board.read(q, board.regionOf(q, k2) + start(seg, mine, q) * bytes, seg.of(out, q));
            }
        }
    }

    /** Where each rank's post {@code k} put its region. */
    private static int[] regions(ShmBoard board, Ring ring, long k) {
        int[] at = new int[ring.size()];
        for (int q = 0; q < at.length; q++) {
            at[q] = q == ring.rank() ? -1 : board.regionOf(q, k);
        }
        return at;
    }

    /**
     * {@code out = (elements [first, first + n) of every rank's block, reduced in rank order)}, where this rank's
     * term is {@code mine}, a cache-sized pass at a time. {@code AVG} divides here. If {@code result >= 0} the result
     * also goes to this rank's region at {@code result}, for the all-gather.
     *
     * <p>The sums run in the loop shape the JIT vectorises, where all three arrays are at the same offset (see
     * {@link HostReduce}). Two ranks out of place: the peer's term is read into {@code out} and added to
     * {@code mine} there (three passes over the data). Otherwise both terms are added in two scratch blocks at
     * offset 0, and {@code out} is written only at the end of a pass, so this rank's term can always come from
     * {@code mine}, in place or not (five passes). The sums are bound by memory traffic, so the first way, with fewer
     * passes, is the faster one wherever it applies.
     */
    private static void reduce(ShmBoard board, Ring ring, int[] regions, int first, HostBuffer mine, HostBuffer out,
                               Reduction op, int result) {
        if (ring.size() == 2 && out.array() != mine.array() && out.offset() == mine.offset()) {
            reduceTwoIntoOut(board, ring.rank(), regions, first, mine, out, op, result);
        } else {
            reduceInScratch(board, ring, regions, first, mine, out, op, result);
        }
    }

    /** {@link #reduce} for two ranks out of place, {@code mine} and {@code out} at the same offset. */
    private static void reduceTwoIntoOut(ShmBoard board, int me, int[] regions, int first, HostBuffer mine,
                                         HostBuffer out, Reduction op, int result) {
        int bytes = mine.dataType().bytes();
        int pass = Math.max(1, PASS_BYTES / bytes);
        int peer = 1 - me;
        for (int at = 0; at < mine.length(); at += pass) {
            int n = Math.min(pass, mine.length() - at);
            HostBuffer sum = out.slice(at, n);
            board.read(peer, regions[peer] + (first + at) * bytes, sum);
            if (me == 0) {
                HostReduce.apply(op, mine.slice(at, n), sum, sum);
            } else {
                HostReduce.apply(op, sum, mine.slice(at, n), sum);
            }
            if (op == Reduction.AVG) {
                HostReduce.divide(sum, 2);
            }
            if (result >= 0) {
                board.write(result + (first + at) * bytes, sum, 0, n);
            }
        }
    }

    /** {@link #reduce} for any number of ranks and placement. */
    private static void reduceInScratch(ShmBoard board, Ring ring, int[] regions, int first, HostBuffer mine,
                                        HostBuffer out, Reduction op, int result) {
        int me = ring.rank();
        int bytes = mine.dataType().bytes();
        int pass = Math.max(1, PASS_BYTES / bytes);
        HostBuffer accBlock = ring.scratch().get(0, mine.dataType(), pass);
        HostBuffer termBlock = ring.scratch().get(1, mine.dataType(), pass);
        for (int at = 0; at < mine.length(); at += pass) {
            int n = Math.min(pass, mine.length() - at);
            HostBuffer acc = accBlock.slice(0, n);
            HostBuffer term = termBlock.slice(0, n);
            for (int q = 0; q < ring.size(); q++) {
                HostBuffer into = q == 0 ? acc : term;
                if (q == me) {
                    mine.slice(at, n).copyTo(into);
                } else {
                    board.read(q, regions[q] + (first + at) * bytes, into);
                }
                if (q > 0) {
                    HostReduce.apply(op, acc, term, acc);
                }
            }
            if (op == Reduction.AVG) {
                HostReduce.divide(acc, ring.size());
            }
            if (result >= 0) {
                board.write(result + (first + at) * bytes, acc, 0, n);
            }
            acc.copyTo(out.slice(at, n));
        }
    }

    /** The first element of segment {@code q} of {@code b}, counted from the start of {@code b}. */
    private static int start(Segments seg, HostBuffer b, int q) {
        return seg.of(b, q).offset() - b.offset();
    }
}
