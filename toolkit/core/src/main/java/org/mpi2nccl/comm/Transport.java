package org.mpi2nccl.comm;

/**
 * Point-to-point messages between ranks: the layer a hand-written collective is built on. Two
 * implementations: {@link org.mpi2nccl.comm.mpj.MpjTransport} (MPI point-to-point through MPJ Express, between rank processes or
 * MPJ's multicore threads) and {@link ThreadTransport} (ranks as threads of one JVM, for unit tests and for
 * lessons that run every rank inside the notebook).
 *
 * <p>Semantics are MPI's: messages between one pair of ranks with one tag arrive in the order they were
 * sent, and receives are matched in the order they were posted. A send's buffer must not change until its
 * {@link Pending} is done.
 */
public interface Transport extends AutoCloseable {

    int rank();

    int size();

    /** "mpj", "threads"... */
    String kind();

    /** Starts sending {@code buffer} to rank {@code dest}. */
    Pending isend(HostBuffer buffer, int dest, int tag);

    /** Starts receiving a message from rank {@code src} into {@code buffer} (exactly its count and type). */
    Pending irecv(HostBuffer buffer, int src, int tag);

    /** Waits until every transfer is done; a transfer still pending at the deadline raises a timeout naming it. */
    default void await(Deadline deadline, CollectiveCall call, Pending... transfers) {
        for (Pending p : transfers) {
            if (p != null && !deadline.await(p::done)) {
                throw new CollectiveTimeoutException(rank(), call, deadline.timeout(), p.describe());
            }
        }
    }

    @Override
    void close();

    /** One transfer in flight. */
    interface Pending {
        /** True once the transfer completed; throws {@link CommException} if it failed. */
        boolean done();

        /** "the message from rank 1 (tag 3)": used in timeout messages. */
        String describe();
    }
}
