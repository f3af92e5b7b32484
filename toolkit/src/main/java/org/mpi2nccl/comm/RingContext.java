package org.mpi2nccl.comm;

/**
 * What one run of a ring algorithm needs: the transport, the call (for error messages), its deadline, the
 * message tag, the pipelining parameters, scratch memory and an optional trace.
 *
 * @param chunkElems elements per pipelined message
 * @param window     messages received ahead while the previous one is being reduced
 */
public record RingContext(Transport transport, CollectiveCall call, Deadline deadline, int tag, int chunkElems,
                          int window, Scratch scratch, RingTrace trace) {

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

    /** Waits for the transfers (timeout error at the deadline). */
    public void await(Transport.Pending... transfers) {
        transport.await(deadline, call, transfers);
    }

    /** Records a transfer if tracing. */
    public void trace(String phase, int step, int segment, int chunk, String direction, int peer, long bytes, long start) {
        if (trace != null) {
            trace.record(rank(), phase, step, segment, chunk, direction, peer, bytes, start, System.nanoTime());
        }
    }

    /** Reusable host memory for received chunks and partial results, grown on demand. */
    public static final class Scratch {
        private HostBuffer[] slots = new HostBuffer[0];

        /** Buffer number {@code i}, of at least {@code count} elements of {@code type}. */
        public synchronized HostBuffer get(int i, DataType type, int count) {
            if (i >= slots.length) {
                slots = java.util.Arrays.copyOf(slots, i + 1);
            }
            HostBuffer b = slots[i];
            if (b == null || b.dataType() != type || b.count() < count) {
                b = HostBuffer.allocate(type, count);
                slots[i] = b;
            }
            return b.slice(0, count);
        }
    }
}
