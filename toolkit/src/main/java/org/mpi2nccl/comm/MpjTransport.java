package org.mpi2nccl.comm;

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
        try {
            Request r = comm.Isend(buffer.array(), buffer.offset(), buffer.length(), mpjType(buffer.dataType()), dest, tag);
            return new MpjPending(r, null, "the message to rank " + dest + " (tag " + tag + ")");
        } catch (MPIException e) {
            throw new CommException("rank " + rank + ": MPJ Isend to rank " + dest + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public Pending irecv(HostBuffer buffer, int src, int tag) {
        CommArgs.rankInRange("recv", "source", src, size);
        try {
            Request r = comm.Irecv(buffer.array(), buffer.offset(), buffer.length(), mpjType(buffer.dataType()), src, tag);
            return new MpjPending(r, buffer, "the message from rank " + src + " (tag " + tag + ")");
        } catch (MPIException e) {
            throw new CommException("rank " + rank + ": MPJ Irecv from rank " + src + " failed: " + e.getMessage(), e);
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
        private final String what;
        private boolean done;

        MpjPending(Request request, HostBuffer recvBuffer, String what) {
            this.request = request;
            this.recvBuffer = recvBuffer;
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
                if (recvBuffer != null && recvBuffer.length() > 0) {
                    int got = s.Get_count(mpjType(recvBuffer.dataType()));
                    if (got != recvBuffer.length()) {
                        throw new CommException("rank " + rank + ": " + what + " has " + got
                                + " elements but the receive expects " + recvBuffer.length()
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
