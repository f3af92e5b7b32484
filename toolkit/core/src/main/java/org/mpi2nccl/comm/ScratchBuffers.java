package org.mpi2nccl.comm;

import java.util.Arrays;

/**
 * Host memory a communicator reuses from call to call for received chunks and partial results, grown on demand:
 * a hand-written collective would otherwise allocate its receive slots on every call. Slots are numbered; the
 * caller decides which number serves which purpose.
 */
public final class ScratchBuffers {
    private HostBuffer[] slots = new HostBuffer[0];

    /** Buffer number {@code i}, of at least {@code count} elements of {@code type}. */
    public synchronized HostBuffer get(int i, DataType type, int count) {
        if (i >= slots.length) {
            slots = Arrays.copyOf(slots, i + 1);
        }
        HostBuffer b = slots[i];
        if (b == null || b.dataType() != type || b.count() < count) {
            b = HostBuffer.allocate(type, count);
            slots[i] = b;
        }
        return b.slice(0, count);
    }
}
