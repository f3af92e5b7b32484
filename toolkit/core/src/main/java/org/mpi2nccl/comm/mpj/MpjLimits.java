package org.mpi2nccl.comm.mpj;

import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;

import mpi.Datatype;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;

/**
 * What MPJ Express 0.44 cannot do, and how {@link MpjCommunicator} and {@link MpjTransport} work around it: no single
 * call may move much more than 256 MiB, collectives ignore buffer offsets, and MPJ has its own names for types and
 * reductions. Kept apart so that the communicator reads as one MPJ call per collective.
 */
final class MpjLimits {
    private MpjLimits() {
    }

    /**
     * MPJ Express rounds every message buffer up to a power of two: a message of 1 GiB needs a 2 GiB buffer and
     * overflows its int capacity ("capacity < 0"). So no single MPJ call moves more than this (the system
     * property {@code mpi2nccl.mpj.maxBytesPerCall} lowers it, for tests of the piecewise paths).
     */
    static final long MAX_BYTES_PER_CALL = Long.getLong("mpi2nccl.mpj.maxBytesPerCall", 256L << 20);

    /**
     * The largest point-to-point message {@link MpjTransport} posts. MPJ Express takes the buffers of every message in
     * flight from one pool of at most 1 GiB, each rounded up to a power of two: a ring all-reduce of 512 MiB on 2
     * ranks (a 256 MiB send and receive in flight, each needing 512 MiB) already fails inside MPJ with "capacity < 0",
     * while 384 MiB (192 MiB messages) runs. Larger messages are refused up front with what to do instead.
     */
    static final long MAX_MESSAGE_BYTES = 192L << 20;

    /** Refuses a point-to-point message of {@code bytes} over {@link #MAX_MESSAGE_BYTES}, saying what to do instead. */
    static void checkMessage(int rank, String what, long bytes) {
        if (bytes > MAX_MESSAGE_BYTES) {
            throw new org.mpi2nccl.comm.CommException("rank " + rank + ": " + what + " is " + (bytes >> 20) + " MiB, over the "
                    + (MAX_MESSAGE_BYTES >> 20) + " MiB that one message through MPJ Express may have (MPJ buffers every"
                    + " message in flight in one pool of at most 1 GiB, each rounded up to a power of two): all-reduce the"
                    + " buffer in smaller parts, or use MPJ's own collectives (the mpi route) or the shared-memory ring (shm)");
        }
    }

    /**
     * MPJ 0.44's collectives ignore the offsets of their buffers (tested: Allreduce, Reduce, Allgather, Scatter and
     * Gather read or write from element 0 whatever the offset; Bcast and point-to-point honour them). So every
     * buffer a collective gets starts at element 0: a slice that does not is copied (or received) into one.
     */
    static HostBuffer atZero(HostBuffer b, boolean copyIn) {
        if (b.offset() == 0) {
            return b;
        }
        HostBuffer z = HostBuffer.allocate(b.dataType(), b.count());
        if (copyIn) {
            b.copyTo(z);
        }
        return z;
    }

    /** Copies a result received into {@link #atZero}'s stand-in back to where it belongs. */
    static void back(HostBuffer received, HostBuffer target) {
        if (received != target && !received.sameAs(target)) {
            received.copyTo(target);
        }
    }

    /** Elements of {@code b}'s type that fit in one MPJ call when {@code parts} of them travel together. */
    static int elems(HostBuffer b, int parts) {
        return (int) Math.max(1, MAX_BYTES_PER_CALL / ((long) b.dataType().bytes() * parts));
    }

    @FunctionalInterface
    interface Piece {
        void run(int offset, int count) throws MPIException;
    }

    /** Calls {@code body} for consecutive pieces of at most {@code max} of {@code total} elements (once if 0). */
    static void inPieces(int total, int max, Piece body) throws MPIException {
        int off = 0;
        do {
            int n = Math.min(max, total - off);
            body.run(off, n);
            off += n;
        } while (off < total);
    }

    static Datatype type(HostBuffer b) {
        return MpjTransport.mpjType(b.dataType());
    }

    static Op mpjOp(Reduction op) {
        return switch (op) {
            case SUM, AVG -> MPI.SUM;
            case PROD -> MPI.PROD;
            case MAX -> MPI.MAX;
            case MIN -> MPI.MIN;
        };
    }
}
