package org.mpi2nccl.comm.shm;

import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.HostBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;

/**
 * A notice board in shared memory that every rank reads directly ({@code org.mpi2nccl.comm.ring.ShmAllReduce}): each rank owns one mapped
 * file, writes data into it, then announces a post by raising its counter; the others wait for the counter and read
 * the data in place. Every post also carries the rank's {@link CollectiveCall}, so the ranks compare their calls in
 * the same wait that brings the data (the metadata check costs no exchange of its own).
 *
 * <p>Where a post's data goes: the file's data area is two slots, and each claim takes the other slot than the last
 * one, so the same few megabytes are written call after call and stay in the caches. A ring of fresh regions would
 * never write over lines a peer has just read, but every fresh region misses every cache on its way in and out,
 * and that costs more than taking back the lines a peer has just read.
 *
 * <p>Why it is safe: every post is followed by a wait for every rank's post of the same number, and a rank posts
 * the first post of a claim only after it has read what it needed of the claim before. So when a rank writes the
 * claim after next into a slot, every peer has posted the next claim's first post, which means it is done with the
 * slot. A claim may carry several posts (the reduce-scatter and all-gather of one block) as long as they follow
 * each other. The call and the region's place are kept per post parity for the same reason, so a rank reads them
 * for the post it has just waited for: one post older may already be overwritten by a peer that has moved on.
 *
 * <p>{@link ShmTransport} maps the boards next to its point-to-point channels; one thread per rank uses them.
 */
public final class ShmBoard {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int COUNTER = 0;                  // posts this rank has announced
    private static final int POST_HEADER = 128;            // per parity: the call's words, the region's offset
    private static final int REGION_WORD = CollectiveCall.WORDS;
    public static final int HEADER = POST_HEADER + 2 * 64;        // the counter on a cache line of its own
    /**
     * Bytes per block of the shared-memory all-reduce: large enough that a block's fixed cost of posting and
     * waiting is small, small enough that a block stays in the caches between its write and the other ranks' reads
     * (results/cpu-allreduce has the block sizes tried).
     */
    public static final int BLOCK_BYTES = 1024 * 1024;

    private final int rank;
    private final int dataBytes;
    private final MappedByteBuffer[] boards;               // boards[q]: rank q's file (this rank writes only its own)
    private final ShmWait waits;
    private long posted;                                   // what this rank's counter says
    private int claims;                                    // regions claimed so far: the next takes slot claims % 2

    ShmBoard(int rank, int dataBytes, MappedByteBuffer[] boards, ShmWait waits) {
        this.rank = rank;
        this.dataBytes = dataBytes;
        this.boards = boards;
        this.waits = waits;
    }

    /** Bytes of a board file whose data area holds {@code dataBytes}. */
    public static long fileBytes(int dataBytes) {
        return HEADER + (long) dataBytes;
    }

    /** How this rank polls (its transport's messages too). */
    public ShmWait waits() {
        return waits;
    }

    public int ranks() {
        return boards.length;
    }

    /** The largest region one claim may take: one of the two slots (see the class comment). */
    public int maxRegionBytes() {
        return dataBytes / 2 & ~63;
    }

    /**
     * Takes the slot the last claim did not take, for a region of {@code bytes}; returns its offset, for
     * {@link #post}. The posts of one claim must follow each other (see the class comment).
     */
    public int claim(int bytes) {
        if (bytes > maxRegionBytes()) {
            throw new IllegalArgumentException("shm board: a region of " + bytes + " bytes is over " + maxRegionBytes());
        }
        return HEADER + (claims++ & 1) * maxRegionBytes();
    }

    /** Copies elements [from, from + n) of {@code src} into this rank's file at byte {@code at} (not yet announced). */
    public void write(int at, HostBuffer src, int from, int n) {
        copy(src, from, n, boards[rank], at, true);
    }

    /**
     * Announces this rank's next post: {@code call} and the region at {@code region}, whose data
     * {@link #write} has put there. Returns the post's number.
     */
    public long post(CollectiveCall call, int region) {
        long k = posted + 1;
        MappedByteBuffer m = boards[rank];
        int h = headerAt(k);
        long[] words = call.encode();
        for (int i = 0; i < words.length; i++) {
            LONGS.set(m, h + 8 * i, words[i]);
        }
        LONGS.set(m, h + 8 * REGION_WORD, (long) region);
        LONGS.setRelease(m, COUNTER, k);                   // the data and header above are visible before the counter
        posted = k;
        return k;
    }

    /**
     * Waits until every rank has announced post {@code k}, then compares their calls with {@code call} if
     * {@code check}. Throws a timeout naming a rank that never posted, or a mismatch naming both calls.
     */
    public void awaitAll(long k, CollectiveCall call, boolean check, Deadline deadline, String what) {
        for (int q = 0; q < boards.length; q++) {
            MappedByteBuffer m = boards[q];
            if (!waits.until(() -> (long) LONGS.getAcquire(m, COUNTER) >= k, deadline)) {
                throw new CollectiveTimeoutException(rank, call, deadline.timeout(),
                        "rank " + q + "'s post " + k + " (" + what + ") on the shared-memory board");
            }
        }
        if (check) {
            requireSameCalls(k, call);
        }
    }

    /** {@link #post} then {@link #awaitAll}: one exchange. */
    public long exchange(CollectiveCall call, boolean check, int region, Deadline deadline, String what) {
        long k = post(call, region);
        awaitAll(k, call, check, deadline, what);
        return k;
    }

    /** Posts {@code call} alone and compares every rank's (the check before a collective that moves no data here). */
    public void checkCall(CollectiveCall call, Deadline deadline) {
        exchange(call, true, HEADER, deadline, "the check of its call");
    }

    /** Where rank {@code q}'s post {@code k} put its region (byte offset in q's file). */
    public int regionOf(int q, long k) {
        return (int) (long) LONGS.get(boards[q], headerAt(k) + 8 * REGION_WORD);
    }

    /** Copies elements of rank {@code q}'s file from byte {@code at} into {@code dst}. */
    public void read(int q, int at, HostBuffer dst) {
        copy(dst, 0, dst.length(), boards[q], at, false);
    }

    private void requireSameCalls(long k, CollectiveCall mine) {
        long[] w = mine.encode();
        for (int q = 0; q < boards.length; q++) {
            if (q == rank) {
                continue;
            }
            int h = headerAt(k);
            for (int i = 0; i < w.length; i++) {
                if ((long) LONGS.get(boards[q], h + 8 * i) != w[i]) {
                    CollectiveCall[] calls = new CollectiveCall[boards.length];
                    for (int r = 0; r < calls.length; r++) {
                        calls[r] = r == rank ? mine : callOf(r, h);
                    }
                    CollectiveCall.requireSame(rank, calls);
                }
            }
        }
    }

    private CollectiveCall callOf(int q, int h) {
        long[] w = new long[CollectiveCall.WORDS];
        for (int i = 0; i < w.length; i++) {
            w[i] = (long) LONGS.get(boards[q], h + 8 * i);
        }
        return CollectiveCall.decode(w, 0);
    }

    private static int headerAt(long k) {
        return POST_HEADER + (int) (k & 1) * 64;
    }

    /**
     * Copies elements [from, from+n) of {@code b} to / from the mapped buffer at byte offset {@code at}: one bulk
     * copy (a memcpy) for every element type.
     */
    public static void copy(HostBuffer b, int from, int n, ByteBuffer m, int at, boolean toShm) {
        ByteBuffer s = m.slice(at, n * b.dataType().bytes()).order(ByteOrder.nativeOrder());
        int o = b.offset() + from;
        switch (b.dataType()) {
            case INT8 -> {
                if (toShm) s.put((byte[]) b.array(), o, n); else s.get((byte[]) b.array(), o, n);
            }
            case INT32 -> {
                if (toShm) s.asIntBuffer().put((int[]) b.array(), o, n); else s.asIntBuffer().get((int[]) b.array(), o, n);
            }
            case INT64 -> {
                if (toShm) s.asLongBuffer().put((long[]) b.array(), o, n); else s.asLongBuffer().get((long[]) b.array(), o, n);
            }
            case FLOAT32 -> {
                if (toShm) s.asFloatBuffer().put((float[]) b.array(), o, n); else s.asFloatBuffer().get((float[]) b.array(), o, n);
            }
            case FLOAT64 -> {
                if (toShm) s.asDoubleBuffer().put((double[]) b.array(), o, n); else s.asDoubleBuffer().get((double[]) b.array(), o, n);
            }
        }
    }
}
