package org.mpi2nccl.comm.mpj;

import org.mpi2nccl.comm.AbstractCommunicator;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.HostReduce;
import org.mpi2nccl.comm.HostStaging;
import org.mpi2nccl.comm.MetadataCheck;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.StagingTimes;

import static org.mpi2nccl.comm.mpj.MpjLimits.atZero;
import static org.mpi2nccl.comm.mpj.MpjLimits.back;
import static org.mpi2nccl.comm.mpj.MpjLimits.elems;
import static org.mpi2nccl.comm.mpj.MpjLimits.inPieces;
import static org.mpi2nccl.comm.mpj.MpjLimits.mpjOp;
import static org.mpi2nccl.comm.mpj.MpjLimits.type;

import java.time.Duration;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * Lesson 01: the MPI route, MPJ Express's own collectives ({@code Allreduce}, {@code Bcast}, ...) on host arrays,
 * the Java twin of an mpi4py program calling {@code comm.Allreduce} on numpy arrays. GPU buffers are staged through
 * pinned host memory (device to host, MPJ collective, host to device) and the time of each phase is kept
 * ({@link #lastStaging()}).
 *
 * <p>MPJ's calls block without a timeout, so they run on one worker thread per communicator ({@link MpjWorker})
 * while the caller waits with the communicator's timeout; the rank should end after a timeout (the launcher stops
 * the others). Before each collective the ranks compare their calls ({@link MetadataCheck}) over MPJ point-to-point
 * messages that can time out. What MPJ 0.44 cannot do (large messages, offsets) is worked around in {@link MpjLimits}.
 */
public final class MpjCommunicator extends AbstractCommunicator {
    // User tags of this communicator's own point-to-point traffic (MPJ's collectives use their own).
    private static final int TAG_META = 31_001;
    private static final int TAG_P2P = 31_002;

    private final Intracomm comm;
    private final MpjTransport transport;
    private final int rank;
    private final int size;
    private final boolean verifyCalls;
    private final MpjWorker worker;
    private final boolean ownsWorker;
    private volatile StagingTimes lastStaging;

    private MpjCommunicator(Intracomm comm, Duration timeout, boolean verifyCalls, MpjWorker worker, boolean ownsWorker) {
        super(timeout);
        this.comm = comm;
        this.transport = new MpjTransport(comm);
        this.rank = transport.rank();
        this.size = transport.size();
        this.verifyCalls = verifyCalls;
        this.worker = worker;
        this.ownsWorker = ownsWorker;
    }

    /** {@code MPI.COMM_WORLD} (after {@code MPI.Init}), 60 s timeout, metadata check on. */
    public static MpjCommunicator world() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** MPJ's point-to-point calls over this communicator's ranks, for collectives written by hand over them. */
    public MpjTransport transport() {
        return transport;
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

    /** The MPJ communicator underneath. */
    public Intracomm intracomm() {
        return comm;
    }

    /** Phase times of the last call on GPU buffers (null if none was staged). */
    public StagingTimes lastStaging() {
        return lastStaging;
    }

    // ---- collectives ----

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, Reduction op) {
        checkAllReduce(send, recv, op);
        CollectiveCall call = begin(Collective.ALL_REDUCE, send.count(), send.dataType(), op, -1);
        collective(call, send, recv, true, (s, r) -> {
            HostBuffer src = s.sameAs(r) ? s.copy() : s;      // MPJ has no MPI_IN_PLACE
            inPieces(r.length(), elems(r, 1), (off, n) -> {
                HostBuffer in = atZero(src.slice(off, n), true);
                HostBuffer out = atZero(r.slice(off, n), false);
                comm.Allreduce(in.array(), 0, out.array(), 0, n, type(r), mpjOp(op));
                back(out, r.slice(off, n));
            });
            if (op == Reduction.AVG) {
                HostReduce.divide(r, size);
            }
        });
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, int root) {
        checkBroadcast(send, recv, root);
        CollectiveCall call = begin(Collective.BROADCAST, recv.count(), recv.dataType(), null, root);
        boolean isRoot = rank == root;
        collective(call, isRoot ? send : null, recv, isRoot, (s, r) -> {
            if (isRoot && !s.sameAs(r)) {
                s.copyTo(r);
            }
            inPieces(r.length(), elems(r, 1), (off, n) -> comm.Bcast(r.array(), r.offset() + off, n, type(r), root));
        });
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, Reduction op, int root) {
        checkReduce(send, recv, op, root);
        CollectiveCall call = begin(Collective.REDUCE, send.count(), send.dataType(), op, root);
        boolean isRoot = rank == root;
        collective(call, send, isRoot ? recv : null, true, (s, r) -> {
            HostBuffer src = r != null && s.sameAs(r) ? s.copy() : s;
            // Non-roots get a scratch receive buffer: MPJ wants one even where it writes nothing.
            HostBuffer dst = r != null ? r : HostBuffer.allocate(s.dataType(), s.count());
            inPieces(s.length(), elems(s, 1), (off, n) -> {
                HostBuffer in = atZero(src.slice(off, n), true);
                HostBuffer out = atZero(dst.slice(off, n), false);
                comm.Reduce(in.array(), 0, out.array(), 0, n, type(s), mpjOp(op), root);
                if (isRoot) {
                    back(out, dst.slice(off, n));
                }
            });
            if (isRoot && op == Reduction.AVG) {
                HostReduce.divide(r, size);
            }
        });
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv) {
        checkAllGather(send, recv);
        CollectiveCall call = begin(Collective.ALL_GATHER, send.count(), send.dataType(), null, -1);
        collective(call, send, recv, true, (s, r) -> {
            HostBuffer src = s.overlaps(r) ? s.copy() : s;
            int block = s.length();
            int piece = elems(s, size);
            if (block <= piece) {
                HostBuffer in = atZero(src, true);
                HostBuffer out = atZero(r, false);
                comm.Allgather(in.array(), 0, block, type(s), out.array(), 0, block, type(r));
                back(out, r);
                return;
            }
            HostBuffer tmp = HostBuffer.allocate(s.dataType(), (long) piece * size);
            inPieces(block, piece, (off, n) -> {        // piece by piece, then each rank's part to its place
                HostBuffer in = atZero(src.slice(off, n), true);
                comm.Allgather(in.array(), 0, n, type(s), tmp.array(), 0, n, type(s));
                for (int q = 0; q < size; q++) {
                    tmp.slice((long) q * n, n).copyTo(r.slice((long) q * block + off, n));
                }
            });
        });
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, Reduction op) {
        checkReduceScatter(send, recv, op);
        CollectiveCall call = begin(Collective.REDUCE_SCATTER, recv.count(), recv.dataType(), op, -1);
        collective(call, send, recv, true, (s, r) -> {
            // MPJ 0.44's Reduce_scatter returns wrong sums and overwrites the send buffer, so this is MPJ's
            // Reduce to rank 0 followed by its Scatter: still MPJ's own collectives, checked by the tests.
            HostBuffer whole = HostBuffer.allocate(s.dataType(), s.count());
            inPieces(s.length(), elems(s, 1), (off, n) -> {
                HostBuffer in = atZero(s.slice(off, n), true);
                HostBuffer out = atZero(whole.slice(off, n), false);
                comm.Reduce(in.array(), 0, out.array(), 0, n, type(s), mpjOp(op), 0);
                if (rank == 0) {
                    back(out, whole.slice(off, n));
                }
            });
            HostBuffer dst = r.overlaps(s) ? HostBuffer.allocate(r.dataType(), r.count()) : r;
            int block = r.length();
            int piece = elems(r, size);
            if (block <= piece) {
                HostBuffer out = atZero(dst, false);
                comm.Scatter(whole.array(), 0, block, type(r), out.array(), 0, block, type(r), 0);
                back(out, dst);
            } else {
                HostBuffer tmp = HostBuffer.allocate(r.dataType(), (long) piece * size);
                inPieces(block, piece, (off, n) -> {
                    if (rank == 0) {
                        for (int q = 0; q < size; q++) {
                            whole.slice((long) q * block + off, n).copyTo(tmp.slice((long) q * n, n));
                        }
                    }
                    HostBuffer out = atZero(dst.slice(off, n), false);
                    comm.Scatter(tmp.array(), 0, n, type(r), out.array(), 0, n, type(r), 0);
                    back(out, dst.slice(off, n));
                });
            }
            if (op == Reduction.AVG) {
                HostReduce.divide(dst, size);
            }
            if (dst != r) {
                dst.copyTo(r);
            }
        });
    }

    @Override
    public void send(CommBuffer buffer, int peer) {
        checkPeer("send", buffer, peer);
        CollectiveCall call = begin(Collective.SEND_RECV, buffer.count(), buffer.dataType(), null, peer);
        pointToPoint(call, buffer, null, (s, r) -> inPieces(s.length(), elems(s, 1),
                (off, n) -> comm.Send(s.array(), s.offset() + off, n, type(s), peer, TAG_P2P)));
    }

    @Override
    public void recv(CommBuffer buffer, int peer) {
        checkPeer("recv", buffer, peer);
        CollectiveCall call = begin(Collective.SEND_RECV, buffer.count(), buffer.dataType(), null, peer);
        pointToPoint(call, null, buffer, (s, r) -> inPieces(r.length(), elems(r, 1), (off, n) -> {
            Status st = comm.Recv(r.array(), r.offset() + off, n, type(r), peer, TAG_P2P);
            int got = st.Get_count(type(r));
            if (got != n) {
                throw new CommException("rank " + rank + ": the message from rank " + peer + " has " + got
                        + " elements but the receive expects " + n + " (of " + r.length() + ")");
            }
        }));
    }

    @Override
    public void barrier() {
        CollectiveCall call = begin(Collective.BARRIER, 0, DataType.INT32, null, -1);
        collective(call, null, null, false, (s, r) -> comm.Barrier());
    }

    @Override
    public MpjCommunicator split(int color, int key) {
        checkColor(color);
        CollectiveCall call = begin(Collective.SPLIT, 2, DataType.INT64, null, -1);
        Intracomm[] child = new Intracomm[1];
        collective(call, null, null, false, (s, r) -> {
            // Two MPJ 0.44 bugs worked around: MPI.UNDEFINED throws a NullPointerException, and so do equal
            // keys. So the ranks exchange (color, key) first; ranks without a color get one nobody uses (and
            // drop the communicator they get), and each rank passes its position in (key, rank) order as key.
            int[] pairs = new int[2 * size];
            comm.Allgather(new int[] {color, key}, 0, 2, MPI.INT, pairs, 0, 2, MPI.INT);
            int unused = 0;
            int position = 0;
            for (int q = 0; q < size; q++) {
                unused = Math.max(unused, pairs[2 * q] + 1);
                if (pairs[2 * q + 1] < key || (pairs[2 * q + 1] == key && q < rank)) {
                    position++;
                }
            }
            child[0] = comm.Split(color == NO_COLOR ? unused : color, position);
            if (color == NO_COLOR) {
                child[0].Free();
                child[0] = null;
            }
        });
        if (child[0] == null) {
            return null;
        }
        return new MpjCommunicator(child[0], timeout(), verifyCalls, worker, false);
    }

    /** Frees the worker thread and this thread's pinned staging memory (not MPJ itself: MPI.Finalize does that). */
    @Override
    public void close() {
        if (!markClosed()) {
            return;
        }
        if (ownsWorker) {
            if (!isBroken()) {
                worker.submit(HostStaging::releaseIfLoaded);
            }
            worker.shutdown();
        }
    }

    @Override
    public String toString() {
        return "MpjCommunicator[rank " + rank + " of " + size + "]";
    }

    // ---- running calls on the worker, with a timeout ----

    @FunctionalInterface
    private interface MpjBody {
        void run(HostBuffer send, HostBuffer recv) throws MPIException;
    }

    private void collective(CollectiveCall call, CommBuffer send, CommBuffer recv, boolean readSend, MpjBody body) {
        run(call, () -> onWorker(call, deadline -> {
            if (verifyCalls) {
                MetadataCheck.verify(transport, TAG_META, call, deadline);
            }
            StagingTimes t = HostStaging.run(send, recv, readSend, (s, r) -> mpj(call, () -> body.run(s, r)));
            if (t != null) {
                lastStaging = t;
            }
        }));
    }

    private void pointToPoint(CollectiveCall call, CommBuffer send, CommBuffer recv, MpjBody body) {
        run(call, () -> onWorker(call, deadline -> {
            StagingTimes t = HostStaging.run(send, recv, send != null, (s, r) -> mpj(call, () -> body.run(s, r)));
            if (t != null) {
                lastStaging = t;
            }
        }));
    }

    private void onWorker(CollectiveCall call, java.util.function.Consumer<Deadline> work) {
        worker.run(rank, call, timeout(), work, this::markBroken);
    }

    @FunctionalInterface
    private interface MpjCall {
        void run() throws MPIException;
    }

    private void mpj(CollectiveCall call, MpjCall c) {
        try {
            c.run();
        } catch (MPIException e) {
            throw new CommException("rank " + rank + ": MPJ " + call.describe() + " failed: " + e.getMessage(), e);
        }
    }

    /** Settings. */
    public static final class Builder {
        private Intracomm comm;
        private Duration timeout = Duration.ofSeconds(60);
        private boolean verifyCalls = true;

        private Builder() {
        }

        /** The MPJ communicator to use (default {@code MPI.COMM_WORLD}). */
        public Builder intracomm(Intracomm c) {
            this.comm = c;
            return this;
        }

        public Builder timeout(Duration t) {
            this.timeout = t;
            return this;
        }

        /** The metadata check before each collective (default on). */
        public Builder verifyCalls(boolean on) {
            this.verifyCalls = on;
            return this;
        }

        public MpjCommunicator build() {
            Intracomm c = comm;
            if (c == null) {
                if (MPI.COMM_WORLD == null) {
                    throw new IllegalStateException("MPJ is not initialised: call MPI.Init(args) first"
                            + " (rank programs are started by the launcher, org.mpi2nccl.launch.Mpj)");
                }
                c = MPI.COMM_WORLD;
            }
            return new MpjCommunicator(c, timeout, verifyCalls, MpjWorker.start(), true);
        }
    }
}
