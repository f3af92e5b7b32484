package org.mpi2nccl.lessons;

import java.time.Duration;
import mpi.Datatype;
import mpi.MPI;
import mpi.Op;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Transport;
import org.mpi2nccl.comm.ring.RingCommunicator;

/**
 * What lessons 01 and 06's exercises are written with: MPI's collectives with MPJ Express's signatures
 * ({@code comm.Allreduce(send, 0, recv, 0, n, MPI.DOUBLE, MPI.SUM)}), on the ranks a check gives the student's
 * function. A check runs the function on the notebook's ranks and on 1 to 4 ranks as threads, which
 * {@code MPI.COMM_WORLD} cannot reach; so the calls go to the toolkit's ring communicator (over MPJ's messages on the
 * notebook's ranks), whose every wait ends at the check's timeout with the call and the rank it waited for, where a
 * collective of MPJ's own would wait for ever.
 *
 * <p>As in MPI, {@code Reduce} leaves the receive buffer of every rank but the root as it was.
 */
public final class MpiComm {
    private final Communicator comm;
    private int calls;

    private MpiComm(Communicator comm) {
        this.comm = comm;
    }

    /**
     * MPI's calls over {@code own}'s ranks (a communicator the check made for this run, closed by the check), each
     * call ending after {@code timeout}: shorter than the check's own communicator waits, so that the ranks the
     * student's call left still meet in the check's next collective. On the notebook's ranks the messages go through
     * a ring over MPJ's point-to-point calls.
     */
    static MpiComm over(Communicator own, Duration timeout) {
        Transport t = PointToPoint.transportOf(own);
        if (t == null) throw new IllegalArgumentException("no MPI calls over a " + own.kind() + " communicator here");
        return new MpiComm(RingCommunicator.over(t).timeout(timeout).build());
    }

    /** This rank, 0 .. size - 1 (MPJ's {@code Rank()}). */
    public int Rank() {
        return comm.rank();
    }

    /** The number of ranks (MPJ's {@code Size()}). */
    public int Size() {
        return comm.size();
    }

    /** How many collectives this rank called: none means the answer reached its ranks some other way. */
    int calls() {
        return calls;
    }

    /** MPI's {@code Allreduce}: every rank's {@code count} elements combined by {@code op}, on every rank. */
    public void Allreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype datatype,
                          Op op) {
        allReduce(sendbuf, sendoffset, recvbuf, recvoffset, count, type(datatype), reduction(op));
    }

    /** MPI's {@code Reduce}: the combined elements on rank {@code root} only. */
    public void Reduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype datatype,
                       Op op, int root) {
        reduce(sendbuf, sendoffset, recvbuf, recvoffset, count, type(datatype), reduction(op), root);
    }

    /** MPI's {@code Bcast}: rank {@code root}'s elements copied to every rank. */
    public void Bcast(Object buf, int offset, int count, Datatype datatype, int root) {
        broadcast(buf, offset, count, type(datatype), root);
    }

    /** MPI's {@code Allgather}: rank r's {@code sendcount} elements at place r * recvcount of every rank's receive buffer. */
    public void Allgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                          int recvcount, Datatype recvtype) {
        allGather(sendbuf, sendoffset, sendcount, type(sendtype), recvbuf, recvoffset, recvcount, type(recvtype));
    }

    // The calls with the toolkit's types: MPJ's MPI class cannot be loaded where log4j is missing (the tests' JVM).

    void allReduce(Object send, int sendOffset, Object recv, int recvOffset, int count, DataType type, Reduction op) {
        calls++;
        comm.allReduce(buffer(send, sendOffset, count, type, "send"), buffer(recv, recvOffset, count, type, "receive"), op);
    }

    void reduce(Object send, int sendOffset, Object recv, int recvOffset, int count, DataType type, Reduction op, int root) {
        calls++;
        comm.reduce(buffer(send, sendOffset, count, type, "send"), buffer(recv, recvOffset, count, type, "receive"), op,
                root);
    }

    void broadcast(Object buf, int offset, int count, DataType type, int root) {
        calls++;
        comm.broadcast(buffer(buf, offset, count, type, "broadcast"), root);
    }

    void allGather(Object send, int sendOffset, int sendCount, DataType sendType, Object recv, int recvOffset,
                   int recvCount, DataType recvType) {
        calls++;
        if (sendCount != recvCount) {
            throw new IllegalArgumentException("Allgather with sendcount " + sendCount + " and recvcount " + recvCount
                    + ": here each rank sends as many elements as it receives from every rank");
        }
        comm.allGather(buffer(send, sendOffset, sendCount, sendType, "send"),
                buffer(recv, recvOffset, recvCount * comm.size(), recvType, "receive"));
    }

    /** The elements {@code offset .. offset + count - 1} of {@code array}, after checking they are of {@code type}. */
    private static HostBuffer buffer(Object array, int offset, int count, DataType type, String role) {
        if (array == null) {
            throw new NullPointerException("the " + role + " buffer is null");
        }
        DataType got = DataType.ofArray(array);
        if (got != type) {
            throw new IllegalArgumentException("the " + role + " buffer is a " + array.getClass().getSimpleName()
                    + ", but the call says " + name(type) + ": the datatype must match the array");
        }
        int length = java.lang.reflect.Array.getLength(array);
        if (offset < 0 || count < 0 || (long) offset + count > length) {
            throw new ArrayIndexOutOfBoundsException("the " + role + " buffer has " + length + " elements; the call"
                    + " asks for " + count + " from offset " + offset);
        }
        return HostBuffer.wrap(array, offset, count);
    }

    private static String name(DataType type) {
        return switch (type) {
            case FLOAT64 -> "MPI.DOUBLE";
            case FLOAT32 -> "MPI.FLOAT";
            case INT32 -> "MPI.INT";
            case INT64 -> "MPI.LONG";
            case INT8 -> "MPI.BYTE";
        };
    }

    private static DataType type(Datatype type) {
        if (type == MPI.DOUBLE) return DataType.FLOAT64;
        if (type == MPI.FLOAT) return DataType.FLOAT32;
        if (type == MPI.INT) return DataType.INT32;
        if (type == MPI.LONG) return DataType.INT64;
        throw new IllegalArgumentException("use MPI.INT, MPI.LONG, MPI.FLOAT or MPI.DOUBLE here");
    }

    private static Reduction reduction(Op op) {
        if (op == MPI.SUM) return Reduction.SUM;
        if (op == MPI.MIN) return Reduction.MIN;
        if (op == MPI.MAX) return Reduction.MAX;
        if (op == MPI.PROD) return Reduction.PROD;
        throw new IllegalArgumentException("use MPI.SUM, MPI.PROD, MPI.MIN or MPI.MAX here");
    }
}
