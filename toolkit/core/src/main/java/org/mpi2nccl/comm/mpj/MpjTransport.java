package org.mpi2nccl.comm.mpj;

import org.mpi2nccl.comm.CommArgs;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Transport;

import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * Point-to-point messages through MPJ Express ({@code Isend}/{@code Irecv}, completion polled with
 * {@code Test} so that every wait can time out). Works on both MPJ devices: niodev (a process per rank,
 * TCP) and multicore (ranks as threads of one JVM).
 */
public final class MpjTransport implements Transport {
    private final Intracomm comm;
    private final int rank;
    private final int size;

    /** A transport over an MPJ communicator ({@code MPI.COMM_WORLD} after {@code MPI.Init}). */
    public MpjTransport(Intracomm comm) {
        this.comm = comm;
        try {
            this.rank = comm.Rank();
            this.size = comm.Size();
        } catch (MPIException e) {
            throw new CommException("MPJ: cannot read rank and size (was MPI.Init called?): " + e.getMessage(), e);
        }
    }

    /** A transport over {@code MPI.COMM_WORLD}. */
    public static MpjTransport world() {
        if (MPI.COMM_WORLD == null) {
            throw new IllegalStateException("MPJ is not initialised: call MPI.Init(args) first"
                    + " (rank programs are started by the launcher, org.mpi2nccl.launch.Mpj)");
        }
        return new MpjTransport(MPI.COMM_WORLD);
    }

    public Intracomm intracomm() {
        return comm;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public String kind() {
        return "mpj";
    }

    @Override
    public Pending isend(HostBuffer buffer, int dest, int tag) {
        CommArgs.rankInRange("send", "destination", dest, size);
        String what = "the message to rank " + dest + " (tag " + tag + ")";
        return pieces(buffer, what, (b, off, n) -> new MpjPending(
                comm.Isend(b.array(), b.offset() + off, n, mpjType(b.dataType()), dest, tag), null, n, what));
    }

    @Override
    public Pending irecv(HostBuffer buffer, int src, int tag) {
        CommArgs.rankInRange("recv", "source", src, size);
        String what = "the message from rank " + src + " (tag " + tag + ")";
        return pieces(buffer, what, (b, off, n) -> new MpjPending(
                comm.Irecv(b.array(), b.offset() + off, n, mpjType(b.dataType()), src, tag), b, n, what));
    }

    @FunctionalInterface
    private interface Post {
        MpjPending post(HostBuffer b, int offset, int count) throws MPIException;
    }

    /**
     * One MPJ request per piece of at most {@link MpjLimits#MAX_BYTES_PER_CALL} (MPJ cannot buffer a
     * message near 1 GiB); both sides cut a message the same way, and MPJ keeps messages of one tag in order.
     */
    private Pending pieces(HostBuffer buffer, String what, Post post) {
        int max = MpjLimits.elems(buffer, 1);
        int total = buffer.length();
        MpjLimits.checkMessage(rank, what, (long) total * buffer.dataType().bytes());
        try {
            if (total <= max) {
                return post.post(buffer, 0, total);
            }
            java.util.List<MpjPending> parts = new java.util.ArrayList<>();
            for (int off = 0; off < total; off += max) {
                parts.add(post.post(buffer, off, Math.min(max, total - off)));
            }
            return new Pending() {
                @Override
                public boolean done() {
                    boolean all = true;
                    for (MpjPending p : parts) {
                        all &= p.done();
                    }
                    return all;
                }

                @Override
                public String describe() {
                    return what + " (" + parts.size() + " pieces)";
                }
            };
        } catch (MPIException e) {
            throw new CommException("rank " + rank + ": MPJ failed to post " + what + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        // The communicator belongs to MPJ (MPI.Finalize frees it).
    }

    /** The MPJ datatype of a buffer's elements. */
    public static Datatype mpjType(DataType t) {
        return switch (t) {
            case INT8 -> MPI.BYTE;
            case INT32 -> MPI.INT;
            case INT64 -> MPI.LONG;
            case FLOAT32 -> MPI.FLOAT;
            case FLOAT64 -> MPI.DOUBLE;
        };
    }

    private final class MpjPending implements Pending {
        private final Request request;
        private final HostBuffer recvBuffer;
        private final int expected;
        private final String what;
        private boolean done;

        MpjPending(Request request, HostBuffer recvBuffer, int expected, String what) {
            this.request = request;
            this.recvBuffer = recvBuffer;
            this.expected = expected;
            this.what = what;
        }

        @Override
        public boolean done() {
            if (done) {
                return true;
            }
            try {
                Status s = request.Test();
                if (s == null) {
                    return false;
                }
                done = true;
                if (recvBuffer != null && expected > 0) {
                    int got = s.Get_count(mpjType(recvBuffer.dataType()));
                    if (got != expected) {
                        throw new CommException("rank " + rank + ": " + what + " has " + got
                                + " elements but the receive expects " + expected
                                + ": the ranks disagree on the size of this transfer");
                    }
                }
                return true;
            } catch (MPIException e) {
                throw new CommException("rank " + rank + ": MPJ failed on " + what + ": " + e.getMessage(), e);
            }
        }

        @Override
        public String describe() {
            return what;
        }
    }
}
