package org.mpi2nccl.comm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;

/**
 * A notice board in shared memory for collectives that every rank reads directly ({@link ShmAllReduce}): each rank
 * owns one mapped file with two slots, writes a block of its buffer into a slot and then raises its counter; the
 * other ranks wait for the counter and read the slot in place. The slots alternate, so a rank can write its next
 * block while the others still read the last one: a rank reaches block k+2 (which reuses block k's slot) only
 * after every rank has announced block k+1, and a rank announces k+1 only after it has finished reading block k.
 *
 * <p>{@link ShmTransport} maps the boards next to its point-to-point channels; one thread per rank uses them.
 */
final class ShmBoard {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int COUNTER = 0;        // blocks this rank has written and announced
    static final int HEADER = 128;               // the counter on its own cache lines

    private final int rank;
    private final int slotBytes;
    private final MappedByteBuffer[] boards;     // boards[q]: rank q's file (this rank writes only its own)
    private final ShmWait waits;
    private long written;                        // what this rank's counter says

    ShmBoard(int rank, int slotBytes, MappedByteBuffer[] boards, ShmWait waits) {
        this.rank = rank;
        this.slotBytes = slotBytes;
        this.boards = boards;
        this.waits = waits;
    }

    /** How this rank polls (its transport's messages too). */
    ShmWait waits() {
        return waits;
    }

    /** Bytes of a board file with slots of {@code slotBytes}. */
    static long fileBytes(int slotBytes) {
        return HEADER + 2L * slotBytes;
    }

    int ranks() {
        return boards.length;
    }

    /** Elements of {@code type} one slot holds. */
    int slotElems(DataType type) {
        return slotBytes / type.bytes();
    }

    /** Writes {@code block} (at most {@link #slotElems} elements) into this rank's next slot and announces it. */
    long post(HostBuffer block) {
        long k = written + 1;
        copy(block, 0, block.length(), boards[rank], slotAt(k), true);
        LONGS.setRelease(boards[rank], COUNTER, k);    // the data above is visible before the counter
        written = k;
        return k;
    }

    /** Waits until every rank has announced block {@code k}; returns -1, or a rank still missing at the deadline. */
    int awaitAll(long k, Deadline deadline) {
        for (int q = 0; q < boards.length; q++) {
            MappedByteBuffer m = boards[q];
            if (!waits.until(() -> (long) LONGS.getAcquire(m, COUNTER) >= k, deadline)) {
                return q;
            }
        }
        return -1;
    }

    /** Copies elements [from, from + dst.length()) of rank {@code q}'s block {@code k} into {@code dst}. */
    void read(int q, long k, int from, HostBuffer dst) {
        copy(dst, 0, dst.length(), boards[q], slotAt(k) + from * dst.dataType().bytes(), false);
    }

    private int slotAt(long k) {
        return HEADER + (int) (k & 1) * slotBytes;
    }

    /**
     * Copies elements [from, from+n) of {@code b} to / from the mapped buffer at byte offset {@code at}: one bulk
     * copy (a memcpy) for every element type.
     */
    static void copy(HostBuffer b, int from, int n, ByteBuffer m, int at, boolean toShm) {
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
