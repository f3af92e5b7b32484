package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.*;
import org.mpi2nccl.comm.mpj.MpjTransport;
import org.mpi2nccl.comm.shm.ShmTransport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.mpi2nccl.comm.ring.RingAllReduce.Ring;
import org.mpi2nccl.comm.ring.RingAllReduce.Segments;

/**
 * Collectives written from scratch over point-to-point messages ({@link Transport}): all-reduce as a ring
 * ({@link RingAllReduce}) or naively ({@link NaiveAllReduce}), broadcast and reduce as pipelined chains
 * ({@link ChainCollectives}), all-gather and reduce-scatter as the two halves of the ring. The lesson's
 * "allreduce from scratch", usable as a real communicator: over MPJ ({@link #mpjWorld()}) between rank
 * processes, or over threads ({@link ThreadTransport}) inside one JVM.
 *
 * <p>On one machine, {@link Algorithm#SHM} over a {@link ShmTransport} replaces the ring by {@link ShmAllReduce}, which
 * reads the other ranks' buffers directly; the communicator then calls itself {@code shm}.
 *
 * <p>GPU buffers are staged through host memory ({@link HostStaging}).
 */
public final class RingCommunicator extends AbstractCommunicator {

    /** Which all-reduce to run. */
    public enum Algorithm {
        /** Reduce-scatter + all-gather around the ring, chunked and pipelined (over any transport). */
        RING,
        /** Everything to rank 0, reduce there, send the result back. */
        NAIVE,
        /** On one machine, no ring: every rank reads the others' buffers in shared memory ({@link ShmAllReduce}). */
        SHM
    }

    // Message tags, one per kind of traffic (below SubTransport.TAGS_PER_CONTEXT).
    private static final int TAG_META = 1;
    private static final int TAG_ALL_REDUCE = 2;
    private static final int TAG_BROADCAST = 3;
    private static final int TAG_REDUCE = 4;
    private static final int TAG_ALL_GATHER = 5;
    private static final int TAG_REDUCE_SCATTER = 6;
    private static final int TAG_P2P = 7;
    private static final int TAG_BARRIER = 8;
    private static final int TAG_SPLIT = 9;

    private final Transport transport;
    private final Algorithm algorithm;
    private final int chunkBytes;
    private final int window;
    private final boolean verifyCalls;
    private final RingObserver observer;
    private final int context;
    private final ScratchBuffers scratch = new ScratchBuffers();
    private int splits;

    private RingCommunicator(Builder b, Transport transport, int context) {
        super(b.timeout);
        this.transport = transport;
        this.algorithm = b.algorithm;
        this.chunkBytes = b.chunkBytes;
        this.window = b.window;
        this.verifyCalls = b.verifyCalls;
        this.observer = b.observer;
        this.context = context;
    }

    /** A builder over any transport. */
    public static Builder over(Transport transport) {
        return new Builder(transport);
    }

    /** A ring over {@code MPI.COMM_WORLD} (call {@code MPI.Init} first), default settings. */
    public static RingCommunicator mpjWorld() {
        return over(MpjTransport.world()).build();
    }

    /** One ring communicator per rank over threads of this JVM (tests, notebooks): element r is rank r. */
    public static List<RingCommunicator> threads(int size, java.util.function.Consumer<Builder> settings) {
        List<RingCommunicator> all = new ArrayList<>();
        for (ThreadTransport t : ThreadTransport.group(size)) {
            Builder b = over(t);
            settings.accept(b);
            all.add(b.build());
        }
        return all;
    }

    @Override
    public int rank() {
        return transport.rank();
    }

    @Override
    public int size() {
        return transport.size();
    }

    @Override
    public String kind() {
        return switch (algorithm) {
            case RING -> "ring";
            case NAIVE -> "naive";
            case SHM -> "shm";
        };
    }

    public Algorithm algorithm() {
        return algorithm;
    }

    public Transport transport() {
        return transport;
    }

    /** Who watches this communicator's collectives ({@link RingObserver#NONE} unless the builder set one). */
    public RingObserver observer() {
        return observer;
    }

    // ---- collectives ----

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, Reduction op) {
        checkAllReduce(send, recv, op);
        CollectiveCall call = begin(Collective.ALL_REDUCE, send.count(), send.dataType(), op, -1);
        run(call, () -> HostStaging.run(send, recv, true, (s, r) -> {
            Transport watched = observer.begin(call, transport);
            if (algorithm == Algorithm.SHM && size() > 1) {
                ShmTransport shm = (ShmTransport) transport;
                // Ranks that share memory read each other's buffers; the call check travels with the data.
                Ring ctx = new Ring(watched, call, Deadline.after(timeout()), TAG_ALL_REDUCE, chunkElems(s.dataType()),
                        window, scratch, observer);
                ShmAllReduce.run(shm.board(), ctx, verifyCalls, s, r, op);
                return;
            }
            Ring ctx = context(call, watched, TAG_ALL_REDUCE, s.dataType());
            if (size() == 1) {
                copyIfNeeded(s, r);
                return;
            }
            if (algorithm == Algorithm.RING) {
                RingAllReduce.run(ctx, s, r, op);
            } else {
                NaiveAllReduce.run(ctx, s, r, op);
            }
        }));
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, int root) {
        checkBroadcast(send, recv, root);
        CollectiveCall call = begin(Collective.BROADCAST, recv.count(), recv.dataType(), null, root);
        CommBuffer src = rank() == root ? send : recv;
        run(call, () -> HostStaging.run(src, recv, rank() == root, (s, r) -> {
            Ring ctx = context(call, TAG_BROADCAST, r.dataType());
            if (size() == 1) {
                copyIfNeeded(s, r);
                return;
            }
            ChainCollectives.broadcast(ctx, s, r, root);
        }));
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, Reduction op, int root) {
        checkReduce(send, recv, op, root);
        CollectiveCall call = begin(Collective.REDUCE, send.count(), send.dataType(), op, root);
        boolean isRoot = rank() == root;
        run(call, () -> HostStaging.run(send, isRoot ? recv : null, true, (s, r) -> {
            Ring ctx = context(call, TAG_REDUCE, s.dataType());
            if (size() == 1) {
                copyIfNeeded(s, r);
                return;
            }
            ChainCollectives.reduce(ctx, s, r, op, root);
        }));
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv) {
        checkAllGather(send, recv);
        CollectiveCall call = begin(Collective.ALL_GATHER, send.count(), send.dataType(), null, -1);
        run(call, () -> HostStaging.run(send, recv, true, (s, r) -> {
            Ring ctx = context(call, TAG_ALL_GATHER, s.dataType());
            HostBuffer mine = r.slice((long) rank() * s.length(), s.length());
            if (!s.sameAs(mine)) {
                s.copyTo(mine);
            }
            RingAllReduce.allGather(ctx, r, Segments.equal(s.length()));
        }));
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, Reduction op) {
        checkReduceScatter(send, recv, op);
        CollectiveCall call = begin(Collective.REDUCE_SCATTER, recv.count(), recv.dataType(), op, -1);
        run(call, () -> HostStaging.run(send, recv, true, (s, r) -> {
            Ring ctx = context(call, TAG_REDUCE_SCATTER, s.dataType());
            int block = r.length();
            // Partial sums need a whole buffer; the caller's send buffer stays untouched.
            HostBuffer acc = size() == 1 ? s : scratchWhole(s.dataType(), s.length());
            RingAllReduce.reduceScatter(ctx, s, acc, Segments.equal(block), op);
            HostBuffer result = acc.slice((long) rank() * block, block);
            if (op == Reduction.AVG && size() > 1) {
                HostReduce.divide(result, size());
            }
            if (!result.sameAs(r)) {
                result.copyTo(r);
            }
        }));
    }

    @Override
    public void send(CommBuffer buffer, int peer) {
        checkPeer("send", buffer, peer);
        CollectiveCall call = begin(Collective.SEND_RECV, buffer.count(), buffer.dataType(), null, peer);
        run(call, () -> HostStaging.run(buffer, null, true, (s, r) ->
                transport.await(Deadline.after(timeout()), call, transport.isend(s, peer, TAG_P2P))));
    }

    @Override
    public void recv(CommBuffer buffer, int peer) {
        checkPeer("recv", buffer, peer);
        CollectiveCall call = begin(Collective.SEND_RECV, buffer.count(), buffer.dataType(), null, peer);
        run(call, () -> HostStaging.run(null, buffer, false, (s, r) ->
                transport.await(Deadline.after(timeout()), call, transport.irecv(r, peer, TAG_P2P))));
    }

    /** Dissemination barrier: in round k every rank signals rank+2^k and waits for rank-2^k; log2(p) rounds. */
    @Override
    public void barrier() {
        CollectiveCall call = begin(Collective.BARRIER, 0, DataType.INT32, null, -1);
        run(call, () -> {
            Deadline d = Deadline.after(timeout());
            verify(call, d);
            HostBuffer token = HostBuffer.of(new int[1]);
            for (int k = 1; k < size(); k *= 2) {
                HostBuffer got = HostBuffer.of(new int[1]);
                Transport.Pending in = transport.irecv(got, Math.floorMod(rank() - k, size()), TAG_BARRIER);
                Transport.Pending out = transport.isend(token, (rank() + k) % size(), TAG_BARRIER);
                transport.await(d, call, in, out);
            }
        });
    }

    @Override
    public RingCommunicator split(int color, int key) {
        checkColor(color);
        CollectiveCall call = begin(Collective.SPLIT, 2, DataType.INT64, null, -1);
        return call(call, () -> {
            Deadline d = Deadline.after(timeout());
            verify(call, d);
            long[] all = new long[2 * size()];
            all[2 * rank()] = color;
            all[2 * rank() + 1] = key;
            Ring ctx = new Ring(transport, call, d, TAG_SPLIT, chunkElems(DataType.INT64), window, scratch, RingObserver.NONE);
            RingAllReduce.allGather(ctx, HostBuffer.of(all), Segments.equal(2));
            splits++;
            if (color == NO_COLOR) {
                return null;
            }
            List<Integer> members = new ArrayList<>();
            for (int r = 0; r < size(); r++) {
                if (all[2 * r] == color) {
                    members.add(r);
                }
            }
            members.sort(Comparator.<Integer>comparingLong(r -> all[2 * r + 1]).thenComparingInt(r -> r));
            int childContext = SubTransport.childContext(context, splits, color);
            // A subset of the ranks cannot share the board of them all: a child of an shm communicator runs the ring.
            Algorithm childAlgorithm = algorithm == Algorithm.SHM ? Algorithm.RING : algorithm;
            Builder b = new Builder(transport).algorithm(childAlgorithm).chunkBytes(chunkBytes).window(window)
                    .timeout(timeout()).verifyCalls(verifyCalls).observer(observer);
            return new RingCommunicator(b, SubTransport.of(transport, members, members.indexOf(rank()), childContext),
                    childContext);
        });
    }

    /** Frees this thread's pinned staging memory if GPU buffers were staged (the transport stays open). */
    @Override
    public void close() {
        if (markClosed()) {
            HostStaging.releaseIfLoaded();
        }
    }

    @Override
    public String toString() {
        return "RingCommunicator[" + kind() + " over " + transport.kind() + ", rank " + rank() + " of " + size() + "]";
    }

    // ---- helpers ----

    /** The ring for one collective: checked against the other ranks' calls first, then watched by the observer. */
    private Ring context(CollectiveCall call, int tag, DataType type) {
        return context(call, observer.begin(call, transport), tag, type);
    }

    private Ring context(CollectiveCall call, Transport watched, int tag, DataType type) {
        Deadline d = Deadline.after(timeout());
        verify(call, d);
        return new Ring(watched, call, d, tag, chunkElems(type), window, scratch, observer);
    }

    private void verify(CollectiveCall call, Deadline d) {
        if (!verifyCalls) {
            return;
        }
        if (transport instanceof ShmTransport shm) {
            // Through the board, where the shared-memory all-reduce checks its calls: a rank in an all-reduce and
            // one in another collective see each other's call and both report the mismatch.
            shm.board().checkCall(call, d);
        } else {
            MetadataCheck.verify(transport, TAG_META, call, d);
        }
    }

    private int chunkElems(DataType type) {
        return Math.max(1, chunkBytes / type.bytes());
    }

    private HostBuffer scratchWhole(DataType type, int count) {
        // Slot numbers above the pipeline's receive slots.
        return scratch.get(window + 1, type, count);
    }

    private static void copyIfNeeded(HostBuffer s, HostBuffer r) {
        if (s != null && r != null && !s.sameAs(r)) {
            s.copyTo(r);
        }
    }

    /** Settings of a ring communicator. */
    public static final class Builder {
        private final Transport transport;
        private Algorithm algorithm = Algorithm.RING;
        private int chunkBytes = 512 * 1024;
        private int window = 4;
        private Duration timeout = Duration.ofSeconds(60);
        private boolean verifyCalls = true;
        private RingObserver observer = RingObserver.NONE;

        private Builder(Transport transport) {
            this.transport = transport;
        }

        public Builder algorithm(Algorithm a) {
            this.algorithm = a;
            return this;
        }

        /** Bytes per pipelined message (default 512 KiB). */
        public Builder chunkBytes(int bytes) {
            if (bytes < 8) {
                throw new IllegalArgumentException("chunkBytes must be at least 8, got " + bytes);
            }
            this.chunkBytes = bytes;
            return this;
        }

        /** Chunks received ahead while one is being reduced (default 4). */
        public Builder window(int chunks) {
            if (chunks < 1) {
                throw new IllegalArgumentException("window must be at least 1, got " + chunks);
            }
            this.window = chunks;
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

        /** Who watches the collectives, e.g. a {@link RingTrace} recording every message (default: nobody). */
        public Builder observer(RingObserver o) {
            this.observer = java.util.Objects.requireNonNull(o, "observer (use RingObserver.NONE)");
            return this;
        }

        public RingCommunicator build() {
            if (algorithm == Algorithm.SHM && !(transport instanceof ShmTransport)) {
                throw new IllegalArgumentException("the SHM all-reduce reads the other ranks' buffers in shared memory, so it"
                        + " needs a ShmTransport (ShmTransport.open(host)), not " + transport.getClass().getSimpleName()
                        + ": use Algorithm.RING over other transports");
            }
            return new RingCommunicator(this, transport, 0);
        }
    }
}
