package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.nccl.ncclAllGather;
import static org.bytedeco.cuda.global.nccl.ncclAllReduce;
import static org.bytedeco.cuda.global.nccl.ncclBroadcast;
import static org.bytedeco.cuda.global.nccl.ncclCommDestroy;
import static org.bytedeco.cuda.global.nccl.ncclCommFinalize;
import static org.bytedeco.cuda.global.nccl.ncclGroupEnd;
import static org.bytedeco.cuda.global.nccl.ncclGroupStart;
import static org.bytedeco.cuda.global.nccl.ncclRecv;
import static org.bytedeco.cuda.global.nccl.ncclReduce;
import static org.bytedeco.cuda.global.nccl.ncclReduceScatter;
import static org.bytedeco.cuda.global.nccl.ncclSend;
import static org.mpi2nccl.comm.nccl.NcclPointers.ptr;
import static org.mpi2nccl.comm.nccl.NcclTypes.ncclOp;
import static org.mpi2nccl.comm.nccl.NcclTypes.ncclType;

import java.util.List;
import java.util.function.IntSupplier;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.mpi2nccl.comm.AbstractCommunicator;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.Reduction;

/**
 * Lessons 04 and 05: NCCL through JavaCPP's binding ({@code org.bytedeco.cuda.global.nccl}), collectives on GPU
 * memory, one rank per GPU. Reading order: how a communicator is made ({@link NcclBootstrap#init}: rank 0 calls
 * {@code ncclGetUniqueId}, its 128 bytes reach the other ranks through a {@link Rendezvous}, each rank calls
 * {@code ncclCommInitRank} on its own GPU), then the collectives below, each one NCCL call. Several GPUs of one
 * process are made at once by {@link #initAll} ({@code ncclCommInitAll}, {@link NcclClique}) and issue their
 * collectives together in {@link #group}.
 *
 * <p>Safety, kept in other files: init gives up at the timeout; a collective whose GPU work does not finish within
 * the timeout (a rank died or skipped it) is aborted with {@code ncclCommAbort} and raises {@link
 * CollectiveTimeoutException} naming it ({@link NcclCalls}, {@link NcclWaits}). The communicator uses NCCL's
 * blocking mode, as PyTorch does: in its non-blocking mode NCCL hands every call to a background thread, and the
 * hand-over and the polling cost a small collective more than its GPU work; {@link NcclOptions#blocking} switches to
 * it, with every call polled. In blocking mode NCCL can also wait inside a call (for room behind a kernel that never
 * ends): {@link NcclWatchdog} aborts the communicator of a call still inside NCCL at its deadline. Before each
 * collective the ranks compare the call's metadata ({@link NcclMetadataCheck}, {@link NcclOptions#verifyCalls});
 * buffers are checked to be this GPU's memory first ({@link NcclPointers}). NCCL errors become {@link NcclException}
 * with NCCL's message and a hint. {@code NCCL_*} environment variables (NCCL_DEBUG, NCCL_SOCKET_IFNAME, ...) are
 * read by NCCL itself in each rank process; the launcher passes the caller's environment on to the ranks.
 */
public final class NcclCommunicator extends AbstractCommunicator {
    private ncclComm comm;
    private final int rank;
    private final int size;
    private final int device;
    private final NcclOptions options;
    private final CUstream_st stream;
    private final boolean ownsStream;
    final boolean inClique;
    private final long initNanos;
    private final long rendezvousNanos;
    private final NcclMetadataCheck metadata = new NcclMetadataCheck(this);
    private final NcclCalls calls;

    NcclCommunicator(ncclComm comm, int rank, int size, int device, NcclOptions options, CUstream_st stream,
                     boolean ownsStream, boolean inClique, long rendezvousNanos, long initNanos) {
        super(options.timeout());
        this.comm = comm;
        this.rank = rank;
        this.size = size;
        this.device = device;
        this.options = options;
        this.stream = stream;
        this.ownsStream = ownsStream;
        this.inClique = inClique;
        this.rendezvousNanos = rendezvousNanos;
        this.initNanos = initNanos;
        this.calls = new NcclCalls(this, inClique, metadata);
    }

    // ---- creation ----

    /**
     * One rank of an NCCL communicator of {@code size} ranks, the id shared through {@code rendezvous}.
     * Every rank calls this; it returns when all have joined (or fails at the timeout).
     */
    public static NcclCommunicator init(Rendezvous rendezvous, int rank, int size, NcclOptions options) {
        return NcclBootstrap.init(rendezvous, rank, size, options);
    }

    /**
     * Step 2 of the bootstrap, on rank 0: {@code ncclGetUniqueId}, as its 128 bytes (what must reach every rank,
     * e.g. with an MPJ broadcast).
     */
    public static byte[] uniqueId() {
        NcclCuda.requireGpus();
        return NcclBootstrap.uniqueId(0);
    }

    /**
     * Step 4 of the bootstrap, on every rank: {@code ncclCommInitRank} with the unique id's bytes that rank 0 made
     * and every rank received (the caller shared them itself).
     */
    public static NcclCommunicator initRank(byte[] id, int rank, int size, NcclOptions options) {
        if (id == null || id.length != 128) {
            throw new IllegalArgumentException("an NCCL unique id has 128 bytes; got " + (id == null ? "null" : id.length));
        }
        return init(new GivenIdRendezvous(id.clone()), rank, size, options);
    }

    /** The bootstrap with the unique id broadcast over a host communicator (MPJ), same ranks and size. */
    public static NcclCommunicator overHost(Communicator host, NcclOptions options) {
        return init(Rendezvous.over(host), host.rank(), host.size(), options);
    }

    /**
     * One communicator per listed GPU, all in this process ({@code ncclCommInitAll}): element i is rank i on
     * {@code devices[i]}. Issue their collectives together inside {@link #group}; close them with {@link #closeAll}.
     */
    public static List<NcclCommunicator> initAll(NcclOptions options, int... devices) {
        return NcclClique.initAll(options, devices);
    }

    // ---- what it is ----

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
        return "nccl";
    }

    /** The CUDA device of this rank. */
    public int device() {
        return device;
    }

    /** Time to share the unique id (rendezvous), in nanoseconds (0 for initAll). */
    public long rendezvousNanos() {
        return rendezvousNanos;
    }

    /** Time of ncclCommInitRank (or ncclCommInitAll), in nanoseconds. */
    public long initNanos() {
        return initNanos;
    }

    public NcclOptions options() {
        return options;
    }

    /** The cudaStream_t address the collectives run on. */
    public long streamAddress() {
        return stream.address();
    }

    // ---- collectives ----

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, Reduction op) {
        checkAllReduce(send, recv, op);
        requireMine("allReduce", send, recv);
        CollectiveCall call = begin(Collective.ALL_REDUCE, send.count(), send.dataType(), op, -1);
        launch(call, send, recv, true, () -> ncclAllReduce(ptr(send), ptr(recv), send.count(), ncclType(send), ncclOp(op), comm, stream));
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, int root) {
        checkBroadcast(send, recv, root);
        CommBuffer src = rank == root ? send : recv;
        requireMine("broadcast", src, recv);
        CollectiveCall call = begin(Collective.BROADCAST, recv.count(), recv.dataType(), null, root);
        launch(call, src, recv, true, () -> ncclBroadcast(ptr(src), ptr(recv), recv.count(), ncclType(recv), root, comm, stream));
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, Reduction op, int root) {
        checkReduce(send, recv, op, root);
        requireMine("reduce", send, recv);
        CollectiveCall call = begin(Collective.REDUCE, send.count(), send.dataType(), op, root);
        launch(call, send, recv, true, () -> ncclReduce(ptr(send), recv == null ? null : ptr(recv), send.count(), ncclType(send),
                ncclOp(op), root, comm, stream));
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv) {
        checkAllGather(send, recv);
        requireMine("allGather", send, recv);
        CollectiveCall call = begin(Collective.ALL_GATHER, send.count(), send.dataType(), null, -1);
        launch(call, send, recv, true, () -> ncclAllGather(ptr(send), ptr(recv), send.count(), ncclType(send), comm, stream));
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, Reduction op) {
        checkReduceScatter(send, recv, op);
        requireMine("reduceScatter", send, recv);
        CollectiveCall call = begin(Collective.REDUCE_SCATTER, recv.count(), recv.dataType(), op, -1);
        launch(call, send, recv, true, () -> ncclReduceScatter(ptr(send), ptr(recv), recv.count(), ncclType(recv), ncclOp(op),
                comm, stream));
    }

    /** ncclSend; pair it with the peer's {@link #recv} (inside {@link #group} when both directions at once). */
    @Override
    public void send(CommBuffer buffer, int peer) {
        checkPeer("send", buffer, peer);
        requireMine("send", buffer, null);
        CollectiveCall call = begin(Collective.SEND_RECV, buffer.count(), buffer.dataType(), null, peer);
        launch(call, buffer, null, false, () -> ncclSend(ptr(buffer), buffer.count(), ncclType(buffer), peer, comm, stream));
    }

    @Override
    public void recv(CommBuffer buffer, int peer) {
        checkPeer("recv", buffer, peer);
        requireMine("recv", buffer, null);
        CollectiveCall call = begin(Collective.SEND_RECV, buffer.count(), buffer.dataType(), null, peer);
        launch(call, null, buffer, false, () -> ncclRecv(ptr(buffer), buffer.count(), ncclType(buffer), peer, comm, stream));
    }

    /** An all-reduce of one number on the GPU, waited for. */
    @Override
    public void barrier() {
        CollectiveCall call = begin(Collective.BARRIER, 0, DataType.INT64, null, -1);
        run(call, () -> calls.barrier(call));
    }

    /**
     * {@code ncclCommSplit}: same GPU and stream, new ranks ordered by {@code key} (ties by rank here; negative keys are
     * fine). {@link Communicator#NO_COLOR} gets null. Bounded by the timeout in both NCCL modes ({@link NcclSplit}).
     */
    @Override
    public NcclCommunicator split(int color, int key) {
        return split(color, key, options);
    }

    /**
     * The same ranks, GPU and stream, whose collectives use at most {@code maxCtas} CTAs (NCCL's config.maxCTAs, through
     * {@code ncclCommSplit}): for collectives that run beside other kernels, which then keep more of the SMs. Calls on
     * it and on this communicator go to the same stream, so they run in the order they are made. Collective.
     */
    public NcclCommunicator withMaxCtas(int maxCtas) {
        if (maxCtas < 1) throw new IllegalArgumentException("withMaxCtas: at least 1 CTA, got " + maxCtas);
        return split(0, rank, options.maxCtas(maxCtas));
    }

    private NcclCommunicator split(int color, int key, NcclOptions childOptions) {
        checkColor(color);
        CollectiveCall call = begin(Collective.SPLIT, 2, DataType.INT64, null, -1);
        return call(call, () -> NcclSplit.child(this, color, key, childOptions, call));
    }

    /** Waits for every call queued so far (asynchronous mode); a timeout aborts and names the last queued call. */
    @Override
    public void synchronize() {
        CollectiveCall last = calls.lastQueued();
        if (last == null || comm == null || isBroken()) {
            return;
        }
        run(last, () -> calls.awaitQueued(last));
    }

    /**
     * Frees the communicator: {@code ncclCommFinalize} (flushing queued work, bounded by the timeout) and
     * {@code ncclCommDestroy}, the stream if this communicator made it, the metadata buffers. After an abort only
     * the buffers remain to free. Not collective, but every rank should close.
     */
    @Override
    public void close() {
        if (!markClosed()) {
            return;
        }
        try {
            if (comm != null && !isBroken()) {
                setDevice();
                if (!inClique) {
                    finalizeBounded();
                }
                NcclException.check(rank, "ncclCommDestroy", ncclCommDestroy(comm), null);
                comm = null;
            } else if (comm != null) {
                NcclWaits.abortQuietly(comm);     // broken by a mismatch or an error before any abort: free NCCL's side too
                comm = null;
            }
        } finally {
            calls.close();
            metadata.free();
            if (ownsStream && stream != null && !stream.isNull()) {
                cudaSetDevice(device);
                cudaStreamDestroy(stream);
            }
        }
    }

    /** {@code ncclCommFinalize} within the timeout ({@link NcclCalls#finalizeBounded}); late, the communicator is aborted. */
    private void finalizeBounded() {
        try {
            calls.finalizeBounded(comm, Deadline.after(timeout()));
        } catch (CommException e) {
            comm = null;        // aborted there
            throw e;
        }
    }

    /**
     * Closes communicators made by {@link #initAll}: finalizes them together in one group, then destroys each. One made
     * otherwise (its ranks in other processes) is closed on its own, as {@link #close} does: finalizing it here too
     * would finalize it twice.
     */
    public static void closeAll(List<NcclCommunicator> clique) {
        NcclClique.closeAll(clique);
    }

    @Override
    public String toString() {
        return "NcclCommunicator[rank " + rank + " of " + size + " on cuda:" + device + "]";
    }

    // ---- group calls ----

    /**
     * Runs {@code body} between {@code ncclGroupStart} and {@code ncclGroupEnd}: the NCCL calls it makes are
     * launched together when the group ends. Needed for the GPUs of one process ({@link #initAll}: one thread
     * issues every rank's call), and for send and recv in both directions at once. Returns when all calls are
     * complete (with the timeout of each communicator). No metadata check runs inside a group.
     */
    public static void group(Runnable body) {
        NcclGroup.run(body);
    }

    /** After ncclGroupEnd returned {@code r}: waits for this communicator's part of the group (ending with {@code last}). */
    void endGroup(int r, CollectiveCall last) {
        run(last, () -> calls.endGroup(r, last));
    }

    // ---- launching and waiting: NcclCalls ----

    /** Launches one NCCL call within this communicator's safety rules ({@link NcclCalls#launch}). */
    private void launch(CollectiveCall call, CommBuffer send, CommBuffer recv, boolean collective, IntSupplier ncclCall) {
        run(call, () -> calls.launch(call, send, recv, collective, ncclCall));
    }

    /** NCCL's side was aborted while {@code why} was raised: the handle is dropped, closing frees only ours. */
    void aborted(CommException why) {
        markBroken(why);
        comm = null;
    }

    // ---- for the helpers of this package ----

    ncclComm handle() {
        return comm;
    }

    CUstream_st stream() {
        return stream;
    }

    NcclCalls calls() {
        return calls;
    }

    NcclMetadataCheck metadata() {
        return metadata;
    }

    String streamAndDevice() {
        return NcclCuda.streamAndDevice(stream, device);
    }

    void setDevice() {
        NcclCuda.setDevice(device, rank);
    }

    private void requireMine(String what, CommBuffer a, CommBuffer b) {
        NcclPointers.requireDevice(what, a, b, rank, device);
    }
}
