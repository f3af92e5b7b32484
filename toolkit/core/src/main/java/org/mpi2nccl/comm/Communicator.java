package org.mpi2nccl.comm;

import java.time.Duration;
import org.mpi2nccl.tensor.NDArray;

/**
 * A group of ranks that move data together: the one interface behind the MPI route
 * ({@link org.mpi2nccl.comm.mpj.MpjCommunicator}), the hand-written ring ({@link org.mpi2nccl.comm.ring.RingCommunicator}) and NCCL
 * ({@code org.mpi2nccl.comm.nccl.NcclCommunicator}), so lessons and the trainer swap them freely.
 *
 * <p>Every rank calls the same collectives in the same order with the same sizes. Before each collective the
 * ranks compare what they are about to do (operation, count, type, reduction, root, sequence number) and a
 * mismatch raises {@link CollectiveMismatchException}; a collective that does not finish within
 * {@link #timeout()} raises {@link CollectiveTimeoutException}. Either leaves the communicator broken.
 *
 * <p>Buffers: {@code send} and {@code recv} may be the same buffer (in place). For {@code allGather} in place
 * means {@code send} is rank r's slice of {@code recv}; for {@code reduceScatter}, {@code recv} is rank r's
 * slice of {@code send} (NCCL's convention). Calls return when the result is in {@code recv}, unless the
 * communicator says otherwise (NCCL's asynchronous mode: then {@link #synchronize()} waits).
 */
public interface Communicator extends AutoCloseable {

    /** The color that leaves a rank out of {@link #split}: that rank gets {@code null}. */
    int NO_COLOR = -1;

    /** This rank, 0 .. size-1. */
    int rank();

    /** Number of ranks. */
    int size();

    /** Short name for tables and plots: "mpj", "ring", "nccl"... */
    String kind();

    /** How long any one call may take before it is aborted. */
    Duration timeout();

    /** True after a timeout, a mismatch or a transport error: every further call fails at once. */
    boolean isBroken();

    /** {@code recv[i] = op over ranks of send[i]} on every rank. */
    void allReduce(CommBuffer send, CommBuffer recv, Reduction op);

    default void allReduce(CommBuffer buffer, Reduction op) {
        allReduce(buffer, buffer, op);
    }

    /** {@code recv = send of root} on every rank ({@code send} is read on the root only). */
    void broadcast(CommBuffer send, CommBuffer recv, int root);

    default void broadcast(CommBuffer buffer, int root) {
        broadcast(buffer, buffer, root);
    }

    /** {@code recv[i] = op over ranks of send[i]} on the root; {@code recv} may be null on other ranks. */
    void reduce(CommBuffer send, CommBuffer recv, Reduction op, int root);

    /** {@code recv = send of rank 0, send of rank 1, ...}: {@code recv.count() == size() * send.count()}. */
    void allGather(CommBuffer send, CommBuffer recv);

    /**
     * Reduces {@code send} (size() blocks of {@code recv.count()} elements) over ranks; rank r gets block r of
     * the result in {@code recv}.
     */
    void reduceScatter(CommBuffer send, CommBuffer recv, Reduction op);

    /** Sends {@code buffer} to {@code peer}, which must call {@link #recv} with the same count and type. */
    void send(CommBuffer buffer, int peer);

    /** Receives from {@code peer} into {@code buffer}; the message must have exactly its count and type. */
    void recv(CommBuffer buffer, int peer);

    // The same calls on arrays of the toolkit (on the CPU or a GPU): a notebook passes its NDArray as it is.

    /** {@link #allReduce(CommBuffer, Reduction)} on an array, in place. */
    default void allReduce(NDArray array, Reduction op) {
        Tensors.allReduce(this, array, op);
    }

    /** {@link #allReduce(CommBuffer, CommBuffer, Reduction)} on arrays. */
    default void allReduce(NDArray send, NDArray recv, Reduction op) {
        Tensors.allReduce(this, send, recv, op);
    }

    /** {@link #broadcast(CommBuffer, int)} on an array, in place. */
    default void broadcast(NDArray array, int root) {
        Tensors.broadcast(this, array, root);
    }

    /** {@link #allGather(CommBuffer, CommBuffer)} on arrays. */
    default void allGather(NDArray send, NDArray recv) {
        Tensors.allGather(this, send, recv);
    }

    /** {@link #reduceScatter(CommBuffer, CommBuffer, Reduction)} on arrays. */
    default void reduceScatter(NDArray send, NDArray recv, Reduction op) {
        Tensors.reduceScatter(this, send, recv, op);
    }

    /** Returns when every rank has entered the barrier. */
    void barrier();

    /**
     * Collective: ranks with the same {@code color} form a new communicator, ordered by {@code key} then by
     * rank in this one. A rank passing {@link #NO_COLOR} takes part but gets {@code null}.
     */
    Communicator split(int color, int key);

    /** Waits for work an asynchronous communicator has queued (no-op for synchronous ones). */
    default void synchronize() {
    }

    /** Frees this communicator's resources (not the buffers). Not collective; idempotent. */
    @Override
    void close();
}
