package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.cudart.cudaErrorNotReady;
import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaFreeHost;
import static org.bytedeco.cuda.global.cudart.cudaGetDevice;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaGetLastError;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMallocHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemoryTypeDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemoryTypeManaged;
import static org.bytedeco.cuda.global.cudart.cudaPointerGetAttributes;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreate;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.cudart.cudaStreamQuery;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;
import static org.bytedeco.cuda.global.nccl.NCCL_API_MAGIC;
import static org.bytedeco.cuda.global.nccl.NCCL_VERSION_CODE;
import static org.bytedeco.cuda.global.nccl.ncclAllGather;
import static org.bytedeco.cuda.global.nccl.ncclAllReduce;
import static org.bytedeco.cuda.global.nccl.ncclBroadcast;
import static org.bytedeco.cuda.global.nccl.ncclCommAbort;
import static org.bytedeco.cuda.global.nccl.ncclCommCount;
import static org.bytedeco.cuda.global.nccl.ncclCommDestroy;
import static org.bytedeco.cuda.global.nccl.ncclCommFinalize;
import static org.bytedeco.cuda.global.nccl.ncclCommGetAsyncError;
import static org.bytedeco.cuda.global.nccl.ncclCommInitAll;
import static org.bytedeco.cuda.global.nccl.ncclCommInitRankConfig;
import static org.bytedeco.cuda.global.nccl.ncclCommSplit;
import static org.bytedeco.cuda.global.nccl.ncclCommUserRank;
import static org.bytedeco.cuda.global.nccl.ncclGetUniqueId;
import static org.bytedeco.cuda.global.nccl.ncclGroupEnd;
import static org.bytedeco.cuda.global.nccl.ncclGroupStart;
import static org.bytedeco.cuda.global.nccl.ncclRecv;
import static org.bytedeco.cuda.global.nccl.ncclReduce;
import static org.bytedeco.cuda.global.nccl.ncclReduceScatter;
import static org.bytedeco.cuda.global.nccl.ncclSend;
import static org.mpi2nccl.comm.nccl.NcclException.IN_PROGRESS;
import static org.mpi2nccl.comm.nccl.NcclException.SUCCESS;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntSupplier;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.cudart.cudaPointerAttributes;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.cuda.nccl.ncclUniqueId;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.mpi2nccl.comm.AbstractCommunicator;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.DeviceBuffer;
import org.mpi2nccl.comm.Reduction;

/**
 * NCCL through JavaCPP's binding ({@code org.bytedeco.cuda.global.nccl}): collectives on GPU memory, one rank
 * per GPU. Made the seed's way ({@link #init}: rank 0 calls {@code ncclGetUniqueId}, its 128 bytes reach the
 * other ranks through a {@link Rendezvous} (an MPJ broadcast, {@code tcp://} or {@code file://}), and each
 * rank calls {@code ncclCommInitRank} on its own GPU), or for several GPUs of one process at once
 * ({@link #initAll}, {@code ncclCommInitAll}) whose collectives are issued together in {@link #group}.
 *
 * <p>Safety: init runs on a helper thread and gives up at the timeout; a collective whose GPU work does not finish
 * within the timeout (a rank died or skipped it) is aborted with {@code ncclCommAbort} and raises
 * {@link CollectiveTimeoutException} naming it. The communicator uses NCCL's blocking mode, as PyTorch does: in its
 * non-blocking mode NCCL hands every call to a background thread (on 2x H200 a 1 MiB all-reduce took about 300 us
 * that way, torch.distributed 34 us); {@link NcclOptions#blocking} switches to it, with every call polled. Before each collective the ranks all-gather the call's
 * metadata (a few bytes) and compare it, so mismatched calls fail at once ({@link NcclOptions#verifyCalls}).
 * NCCL errors become {@link NcclException} with NCCL's message and a hint. {@code NCCL_*} environment
 * variables (NCCL_DEBUG, NCCL_SOCKET_IFNAME, ...) are read by NCCL itself in each rank process; the launcher
 * passes the caller's environment on to the ranks.
 */
public final class NcclCommunicator extends AbstractCommunicator {
    private static final ThreadLocal<Group> GROUP = new ThreadLocal<>();
    private static final int CONFIG_UNDEF_INT = Integer.MIN_VALUE;

    private ncclComm comm;
    private final int rank;
    private final int size;
    private final int device;
    private final NcclOptions options;
    private final CUstream_st stream;
    private final boolean ownsStream;
    private final boolean inClique;
    private final long initNanos;
    private final long rendezvousNanos;
    private Pointer metaDevice;
    private Pointer metaHost;
    private CollectiveCall lastQueued;
    private cudaPointerAttributes attributes;
    /** Buffers already found to be device memory of this GPU (address -> bytes), so the fast mode checks each once. */
    private final Map<Long, Long> checkedBuffers = new java.util.LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > 256;
        }
    };
    /** Where the last NCCL call went (buffers, stream, device), for the error that may surface when it runs. */
    private String lastLaunch = "";

    private NcclCommunicator(ncclComm comm, int rank, int size, int device, NcclOptions options, CUstream_st stream,
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
    }

    // ---- creation ----

    /**
     * One rank of an NCCL communicator of {@code size} ranks, the id shared through {@code rendezvous}.
     * Every rank calls this; it returns when all have joined (or fails at the timeout).
     */
    public static NcclCommunicator init(Rendezvous rendezvous, int rank, int size, NcclOptions options) {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("NCCL init: rank " + rank + " of " + size + " is not a rank (0.." + (size - 1) + ")");
        }
        int gpus = requireGpus();
        int device = options.device() >= 0 ? options.device() : rank % gpus;
        if (device >= gpus) {
            throw new IllegalArgumentException("rank " + rank + ": CUDA device " + device + " does not exist (this process sees "
                    + gpus + " GPU(s); check CUDA_VISIBLE_DEVICES)");
        }
        check(cudaSetDevice(device), rank, "cudaSetDevice(" + device + ")");
        Deadline deadline = Deadline.after(options.timeout());
        long t0 = System.nanoTime();
        byte[] id = null;
        if (rank == 0 && !(rendezvous instanceof GivenId)) {
            ncclUniqueId uid = new ncclUniqueId();
            NcclException.check(rank, "ncclGetUniqueId", ncclGetUniqueId(uid), null);
            id = new byte[128];
            new BytePointer(uid).get(id);
        }
        id = rendezvous.share(rank, size, id, options.timeout());
        long t1 = System.nanoTime();
        ncclUniqueId uid = new ncclUniqueId();
        new BytePointer(uid).put(id);
        ncclComm comm = new ncclComm();
        ncclConfig_t config = config(options.blocking());
        String what = "ncclCommInitRank (rank " + rank + " of " + size + ", GPU " + device + ", id via " + rendezvous.describe() + ")";
        if (options.blocking()) {
            initBlocking(comm, size, uid, rank, device, config, what, deadline);
        } else {
            int r = ncclCommInitRankConfig(comm, size, uid, rank, config);
            awaitComm(comm, r, rank, what, deadline, null);
        }
        long t2 = System.nanoTime();
        CUstream_st stream = makeStream(options, rank);
        return new NcclCommunicator(comm, rank, size, device, options, stream, options.stream() == 0, false, t1 - t0, t2 - t1);
    }

    /**
     * A blocking ncclCommInitRank waits inside NCCL until every rank has joined; it runs on a helper thread so
     * that this thread can give up at the deadline with an error instead of hanging. (A timed-out init cannot be
     * aborted safely while NCCL is still inside it: the helper thread is left behind, and the rank should end.)
     */
    private static void initBlocking(ncclComm comm, int size, ncclUniqueId uid, int rank, int device, ncclConfig_t config,
                                     String what, Deadline deadline) {
        java.util.concurrent.FutureTask<Integer> init = new java.util.concurrent.FutureTask<>(() -> {
            check(cudaSetDevice(device), rank, "cudaSetDevice(" + device + ") on the init thread");
            return ncclCommInitRankConfig(comm, size, uid, rank, config);
        });
        Thread t = new Thread(init, "nccl-init-rank-" + rank);
        t.setDaemon(true);
        t.start();
        int r;
        try {
            r = init.get(Math.max(1, deadline.remainingNanos()), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new CollectiveTimeoutException(rank, what, deadline.timeout(),
                    "every rank to join: is a rank missing, or stuck before its init? (NCCL keeps waiting on a helper"
                            + " thread: end this rank)");
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof RuntimeException re ? re : new CommException("rank " + rank + ": " + what + " failed: " + c, c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException("rank " + rank + ": interrupted during " + what, e);
        }
        if (r != SUCCESS) {
            String last = NcclException.lastError(comm);
            abortQuietly(comm);
            throw new NcclException(rank, what, r, last);
        }
    }

    /**
     * Step 1 of the seed's bootstrap, on rank 0: {@code ncclGetUniqueId}, as its 128 bytes (what must reach
     * every rank, e.g. with an MPJ broadcast).
     */
    public static byte[] uniqueId() {
        requireGpus();
        ncclUniqueId uid = new ncclUniqueId();
        NcclException.check(0, "ncclGetUniqueId", ncclGetUniqueId(uid), null);
        byte[] id = new byte[128];
        new BytePointer(uid).get(id);
        return id;
    }

    /**
     * Step 3 of the seed's bootstrap, on every rank: {@code ncclCommInitRank} with the unique id's bytes that
     * rank 0 made and every rank received.
     */
    public static NcclCommunicator initRank(byte[] id, int rank, int size, NcclOptions options) {
        if (id == null || id.length != 128) {
            throw new IllegalArgumentException("an NCCL unique id has 128 bytes; got " + (id == null ? "null" : id.length));
        }
        return init(new GivenId(id.clone()), rank, size, options);
    }

    /** The id is already on every rank (passed in by the caller): nothing to share, nothing to make. */
    private record GivenId(byte[] id) implements Rendezvous {
        @Override
        public byte[] share(int rank, int size, byte[] fromRoot, Duration timeout) {
            return id;
        }

        @Override
        public String describe() {
            return "bytes given by the caller";
        }
    }

    /** The seed's bootstrap: the unique id broadcast over a host communicator (MPJ), same ranks and size. */
    public static NcclCommunicator overHost(Communicator host, NcclOptions options) {
        return init(Rendezvous.over(host), host.rank(), host.size(), options);
    }

    /**
     * One communicator per listed GPU, all in this process ({@code ncclCommInitAll}): element i is rank i on
     * {@code devices[i]}. Issue their collectives together inside {@link #group}; close them with {@link #closeAll}.
     */
    public static List<NcclCommunicator> initAll(NcclOptions options, int... devices) {
        int gpus = requireGpus();
        if (devices.length == 0) {
            throw new IllegalArgumentException("initAll: no devices given");
        }
        for (int d : devices) {
            if (d < 0 || d >= gpus) {
                throw new IllegalArgumentException("initAll: CUDA device " + d + " does not exist (this process sees " + gpus + ")");
            }
        }
        if (options.stream() != 0) {
            throw new IllegalArgumentException("initAll: each GPU needs its own stream; leave options.stream at 0");
        }
        long t0 = System.nanoTime();
        PointerPointer<ncclComm> comms = new PointerPointer<>(devices.length);
        NcclException.check(0, "ncclCommInitAll(" + devices.length + " GPUs)", ncclCommInitAll(comms, devices.length, devices), null);
        long t1 = System.nanoTime();
        List<NcclCommunicator> out = new ArrayList<>();
        for (int i = 0; i < devices.length; i++) {
            check(cudaSetDevice(devices[i]), i, "cudaSetDevice(" + devices[i] + ")");
            CUstream_st s = makeStream(options, i);
            out.add(new NcclCommunicator(new ncclComm(comms.get(i)), i, devices.length, devices[i],
                    options.synchronous(true), s, true, true, 0, t1 - t0));
        }
        return out;
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

    /** The NCCL_* variables this process sees (what NCCL will read), for reports. */
    public static Map<String, String> ncclEnvironment() {
        Map<String, String> out = new TreeMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("NCCL_")) {
                out.put(k, v);
            }
        });
        return out;
    }

    // ---- collectives ----

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, Reduction op) {
        checkAllReduce(send, recv, op);
        requireMine("allReduce", send, recv);
        CollectiveCall call = begin(Collective.ALL_REDUCE, send.count(), send.dataType(), op, -1);
        launch(call, send, recv, () -> ncclAllReduce(ptr(send), ptr(recv), send.count(), ncclType(send), ncclOp(op), comm, stream));
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, int root) {
        checkBroadcast(send, recv, root);
        CommBuffer src = rank == root ? send : recv;
        requireMine("broadcast", src, recv);
        CollectiveCall call = begin(Collective.BROADCAST, recv.count(), recv.dataType(), null, root);
        launch(call, src, recv, () -> ncclBroadcast(ptr(src), ptr(recv), recv.count(), ncclType(recv), root, comm, stream));
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, Reduction op, int root) {
        checkReduce(send, recv, op, root);
        requireMine("reduce", send, recv);
        CollectiveCall call = begin(Collective.REDUCE, send.count(), send.dataType(), op, root);
        launch(call, send, recv, () -> ncclReduce(ptr(send), recv == null ? null : ptr(recv), send.count(), ncclType(send), ncclOp(op),
                root, comm, stream));
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv) {
        checkAllGather(send, recv);
        requireMine("allGather", send, recv);
        CollectiveCall call = begin(Collective.ALL_GATHER, send.count(), send.dataType(), null, -1);
        launch(call, send, recv, () -> ncclAllGather(ptr(send), ptr(recv), send.count(), ncclType(send), comm, stream));
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, Reduction op) {
        checkReduceScatter(send, recv, op);
        requireMine("reduceScatter", send, recv);
        CollectiveCall call = begin(Collective.REDUCE_SCATTER, recv.count(), recv.dataType(), op, -1);
        launch(call, send, recv, () -> ncclReduceScatter(ptr(send), ptr(recv), recv.count(), ncclType(recv), ncclOp(op), comm, stream));
    }

    /** ncclSend; pair it with the peer's {@link #recv} (inside {@link #group} when both directions at once). */
    @Override
    public void send(CommBuffer buffer, int peer) {
        checkPeer("send", buffer, peer);
        requireMine("send", buffer, null);
        CollectiveCall call = begin(Collective.SEND_RECV, buffer.count(), buffer.dataType(), null, peer);
        launchPointToPoint(call, buffer, null, () -> ncclSend(ptr(buffer), buffer.count(), ncclType(buffer), peer, comm, stream));
    }

    @Override
    public void recv(CommBuffer buffer, int peer) {
        checkPeer("recv", buffer, peer);
        requireMine("recv", buffer, null);
        CollectiveCall call = begin(Collective.SEND_RECV, buffer.count(), buffer.dataType(), null, peer);
        launchPointToPoint(call, null, buffer, () -> ncclRecv(ptr(buffer), buffer.count(), ncclType(buffer), peer, comm, stream));
    }

    /** An all-reduce of one number on the GPU, waited for. */
    @Override
    public void barrier() {
        CollectiveCall call = begin(Collective.BARRIER, 0, DataType.INT64, null, -1);
        run(call, () -> {
            Deadline d = Deadline.after(timeout());
            setDevice();
            settle(call, d);
            if (options.verifyCalls()) {
                verify(call, d);
            }
            Pointer scratch = metaScratch();
            lastLaunch = "the barrier's ncclAllReduce (1 x int64 in place at " + Addresses.hex(scratch.address()) + ", "
                    + streamAndDevice() + ")";
            complete(ncclAllReduce(scratch, scratch, 1, ncclType(DataType.INT64), ncclOp(Reduction.SUM), comm, stream),
                    call, d, "ncclAllReduce");
            waitStream(call, d, "the barrier's all-reduce");
        });
    }

    /** {@code ncclCommSplit}: same GPU and stream, new ranks. {@link Communicator#NO_COLOR} gets null. */
    @Override
    public NcclCommunicator split(int color, int key) {
        checkColor(color);
        CollectiveCall call = begin(Collective.SPLIT, 2, DataType.INT64, null, -1);
        return call(call, () -> {
            Deadline d = Deadline.after(timeout());
            setDevice();
            settle(call, d);
            if (options.verifyCalls()) {
                verify(call, d);
            }
            ncclComm child = new ncclComm();
            int r = ncclCommSplit(comm, color, key, child, config(options.blocking()));
            if (r == IN_PROGRESS) {
                awaitComm(child.isNull() ? comm : child, r, rank, "ncclCommSplit(color " + color + ", key " + key + ")", d, call);
            } else {
                complete(r, call, d, "ncclCommSplit");
            }
            if (child.isNull()) {
                return null;
            }
            int[] cr = {0};
            int[] cn = {0};
            NcclException.check(rank, "ncclCommUserRank", ncclCommUserRank(child, cr), child);
            NcclException.check(rank, "ncclCommCount", ncclCommCount(child, cn), child);
            return new NcclCommunicator(child, cr[0], cn[0], device, options, stream, false, false, 0, 0);
        });
    }

    /** Waits for every call queued so far (asynchronous mode); a timeout aborts and names the last queued call. */
    @Override
    public void synchronize() {
        CollectiveCall last = lastQueued;
        if (last == null || comm == null || isBroken()) {
            return;
        }
        run(last, () -> {
            setDevice();
            waitStream(last, Deadline.after(timeout()), "the queued collectives (the last: " + last.describe() + ")");
            lastQueued = null;
        });
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
                    int r = ncclCommFinalize(comm);
                    try {
                        awaitComm(comm, r, rank, "ncclCommFinalize", Deadline.after(timeout()), null);
                    } catch (CommException e) {
                        comm = null;        // awaitComm aborted it
                        throw e;
                    }
                }
                NcclException.check(rank, "ncclCommDestroy", ncclCommDestroy(comm), null);
                comm = null;
            } else if (comm != null) {
                abortQuietly(comm);     // broken by a mismatch or an error before any abort: free NCCL's side too
                comm = null;
            }
        } finally {
            freeBuffers();
        }
    }

    /** Closes communicators made by {@link #initAll}: finalizes them together in one group, then destroys each. */
    public static void closeAll(List<NcclCommunicator> clique) {
        ncclGroupStart();
        for (NcclCommunicator c : clique) {
            if (c.comm != null && !c.isBroken()) {
                c.setDevice();
                ncclCommFinalize(c.comm);
            }
        }
        ncclGroupEnd();
        for (NcclCommunicator c : clique) {
            c.close();
        }
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
        if (GROUP.get() != null) {
            body.run();                      // nested groups merge into the outer one, as in NCCL
            return;
        }
        Group g = new Group();
        GROUP.set(g);
        NcclException.check(0, "ncclGroupStart", ncclGroupStart(), null);
        RuntimeException failure = null;
        try {
            body.run();
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            GROUP.remove();
        }
        int r = ncclGroupEnd();
        if (failure != null) {
            throw failure;
        }
        for (NcclCommunicator c : g.members) {
            CollectiveCall last = g.lastCall.get(c);
            c.run(last, () -> {
                Deadline d = Deadline.after(c.timeout());
                c.setDevice();
                if (r == IN_PROGRESS) {
                    awaitComm(c.comm, r, c.rank, "ncclGroupEnd", d, last);
                } else if (r != SUCCESS) {
                    throw new NcclException(c.rank, "ncclGroupEnd (group ending with " + last.describe() + ")", r,
                            NcclException.lastError(c.comm));
                }
                if (c.options.synchronous()) {
                    c.waitStream(last, d, "the group's calls");
                } else {
                    c.lastQueued = last;
                }
            });
        }
    }

    private static final class Group {
        final Set<NcclCommunicator> members = new LinkedHashSet<>();
        final Map<NcclCommunicator, CollectiveCall> lastCall = new java.util.HashMap<>();
    }

    // ---- launching and waiting ----

    private void launch(CollectiveCall call, CommBuffer send, CommBuffer recv, IntSupplier ncclCall) {
        run(call, () -> {
            Deadline d = Deadline.after(timeout());
            setDevice();
            if (GROUP.get() == null) {
                settle(call, d);
            }
            checkPointers(call, send, recv);
            Group g = GROUP.get();
            if (g != null) {
                queueInGroup(g, call, ncclCall);
                return;
            }
            if (inClique && size > 1) {
                throw new IllegalStateException("rank " + rank + ": " + call.describe() + " on one GPU of a single-process"
                        + " communicator would wait forever for the others: issue every GPU's call inside"
                        + " NcclCommunicator.group(() -> ...)");
            }
            if (options.verifyCalls()) {
                verify(call, d);
            }
            complete(ncclCall.getAsInt(), call, d, "nccl" + capitalized(call.collective().label()));
            finish(call, d);
        });
    }

    private void launchPointToPoint(CollectiveCall call, CommBuffer send, CommBuffer recv, IntSupplier ncclCall) {
        run(call, () -> {
            Deadline d = Deadline.after(timeout());
            setDevice();
            if (GROUP.get() == null) {
                settle(call, d);
            }
            checkPointers(call, send, recv);
            Group g = GROUP.get();
            if (g != null) {
                queueInGroup(g, call, ncclCall);
                return;
            }
            complete(ncclCall.getAsInt(), call, d, call.collective() == Collective.SEND_RECV ? "ncclSend/ncclRecv" : "nccl");
            finish(call, d);
        });
    }

    private void queueInGroup(Group g, CollectiveCall call, IntSupplier ncclCall) {
        int r = ncclCall.getAsInt();
        if (r != SUCCESS && r != IN_PROGRESS) {
            throw new NcclException(rank, call.describe() + " (inside a group)", r, NcclException.lastError(comm));
        }
        g.members.add(this);
        g.lastCall.put(this, call);
    }

    private void finish(CollectiveCall call, Deadline d) {
        if (options.synchronous()) {
            waitStream(call, d, "the GPU to finish the collective");
        } else {
            lastQueued = call;
        }
    }

    /**
     * Non-blocking communicators only: waits until NCCL reports the previous call finished (not ncclInProgress),
     * as NCCL requires before the next call. A blocking communicator is always settled.
     */
    private void settle(CollectiveCall call, Deadline d) {
        if (!options.blocking() && !inClique && comm != null) {
            awaitComm(comm, IN_PROGRESS, rank, "the previous NCCL call before " + call.describe(), d, call);
        }
    }

    /** Success: done. ncclInProgress (non-blocking mode): poll until the call is queued. Else: an error. */
    private void complete(int result, CollectiveCall call, Deadline d, String what) {
        if (result == SUCCESS) {
            return;
        }
        if (result == IN_PROGRESS) {
            awaitComm(comm, result, rank, what + " for " + call.describe(), d, call);
            return;
        }
        throw new NcclException(rank, what + " for " + call.describe(), result, NcclException.lastError(comm));
    }

    /**
     * Polls {@code ncclCommGetAsyncError} until {@code c} leaves ncclInProgress. At the deadline, or on an
     * error, the communicator is aborted (ncclCommAbort) and the error names the call ({@code call}, or
     * {@code what} for init and finalize, where call is null).
     */
    private static void awaitComm(ncclComm c, int result, int rank, String what, Deadline d, CollectiveCall call) {
        if (result == SUCCESS) {
            return;
        }
        if (result != IN_PROGRESS) {
            String last = NcclException.lastError(c);
            abortQuietly(c);
            throw new NcclException(rank, what, result, last);
        }
        int[] state = {IN_PROGRESS};
        boolean done = d.await(() -> {
            int r = ncclCommGetAsyncError(c, state);
            if (r != SUCCESS) {
                state[0] = r;
            }
            return state[0] != IN_PROGRESS;
        });
        if (!done) {
            abortQuietly(c);
            throw call == null
                    ? new CollectiveTimeoutException(rank, what, d.timeout(), "every rank to join; aborted with ncclCommAbort")
                    : new CollectiveTimeoutException(rank, call, d.timeout(), what + "; aborted with ncclCommAbort");
        }
        if (state[0] != SUCCESS) {
            String last = NcclException.lastError(c);
            abortQuietly(c);
            throw new NcclException(rank, what, state[0], last);
        }
    }

    /** Polls the stream until the queued work is done, watching NCCL's async error; aborts at the deadline. */
    private void waitStream(CollectiveCall call, Deadline d, String waitingFor) {
        int[] async = {SUCCESS};
        int[] cudaErr = {cudaSuccess};
        boolean done = d.await(() -> {
            int q = cudaStreamQuery(stream);
            if (q == cudaSuccess) {
                return true;
            }
            if (q != cudaErrorNotReady) {
                cudaErr[0] = q;
                return true;
            }
            ncclCommGetAsyncError(comm, async);
            return async[0] != SUCCESS && async[0] != IN_PROGRESS;
        });
        if (cudaErr[0] != cudaSuccess) {
            CommException e = new CommException("rank " + rank + ": " + call.describe() + ": CUDA error on the stream: "
                    + cudaGetErrorString(cudaErr[0]).getString() + " (" + cudaErr[0] + "); last NCCL call: " + lastLaunch
                    + "; waiting for " + waitingFor);
            abort(e);
            throw e;
        }
        if (async[0] != SUCCESS && async[0] != IN_PROGRESS) {
            NcclException e = new NcclException(rank, call.describe(), async[0], NcclException.lastError(comm));
            abort(e);
            throw e;
        }
        if (!done) {
            CollectiveTimeoutException e = new CollectiveTimeoutException(rank, call, d.timeout(),
                    waitingFor + "; aborted with ncclCommAbort");
            abort(e);
            throw e;
        }
    }

    /**
     * The metadata check on the GPU: this rank's 6 numbers go into its slot of a small device buffer, an
     * in-place ncclAllGather fills the other slots, and the host compares them. One tiny collective and one
     * stream wait per call.
     */
    private void verify(CollectiveCall call, Deadline d) {
        if (size == 1) {
            return;
        }
        ensureMetaBuffers();
        int w = CollectiveCall.WORDS;
        LongPointer host = new LongPointer(metaHost).capacity((long) size * w + 1);
        long[] mine = call.encode();
        host.position((long) rank * w).put(mine, 0, w);
        host.position(0);
        long slot = (long) rank * w * 8;
        Pointer devSlot = Addresses.at(metaDevice.address() + slot);
        Pointer hostSlot = Addresses.at(metaHost.address() + slot);
        check(cudaMemcpyAsync(devSlot, hostSlot, (long) w * 8, cudaMemcpyHostToDevice, stream), rank,
                "metadata copy for " + call.describe() + " (pinned host " + Addresses.hex(hostSlot.address()) + " -> device "
                        + Addresses.hex(devSlot.address()) + ", " + w * 8 + " bytes, " + streamAndDevice() + ")");
        lastLaunch = "the metadata ncclAllGather for " + call.describe() + " (in place at " + Addresses.hex(metaDevice.address())
                + ", " + size * w + " x int64, " + streamAndDevice() + ")";
        complete(ncclAllGather(devSlot, metaDevice, w, ncclType(DataType.INT64), comm, stream), call, d,
                "the metadata ncclAllGather");
        check(cudaMemcpyAsync(metaHost, metaDevice, (long) size * w * 8, cudaMemcpyDeviceToHost, stream), rank,
                "metadata copy back for " + call.describe() + " (device " + Addresses.hex(metaDevice.address()) + " -> pinned host "
                        + Addresses.hex(metaHost.address()) + ", " + size * w * 8 + " bytes, " + streamAndDevice() + ")");
        waitStream(call, d, "the metadata check (an all-gather every rank makes before each collective)");
        settle(call, d);
        long[] all = new long[size * w];
        host.get(all, 0, all.length);
        CollectiveCall[] calls = new CollectiveCall[size];
        for (int r = 0; r < size; r++) {
            calls[r] = CollectiveCall.decode(all, r * w);
        }
        CollectiveCall.requireSame(rank, calls);
    }

    private void ensureMetaBuffers() {
        if (metaDevice == null) {
            long bytes = ((long) size * CollectiveCall.WORDS + 1) * 8;
            Pointer dev = new Pointer();
            check(cudaMalloc(dev, bytes), rank, "cudaMalloc (metadata, " + bytes + " bytes)");
            Pointer host = new Pointer();
            check(cudaMallocHost(host, bytes), rank, "cudaMallocHost (metadata, " + bytes + " bytes)");
            metaDevice = dev;
            metaHost = host;
        }
    }

    /** One int64 of device scratch after the metadata slots (the barrier's all-reduce). */
    private Pointer metaScratch() {
        ensureMetaBuffers();
        return Addresses.at(metaDevice.address() + (long) size * CollectiveCall.WORDS * 8);
    }

    private void abort(CommException why) {
        markBroken(why);
        if (comm != null) {
            abortQuietly(comm);
            comm = null;
        }
    }

    private static void abortQuietly(ncclComm c) {
        try {
            if (c != null && !c.isNull()) {
                ncclCommAbort(c);
            }
        } catch (Throwable t) {
            // best effort: the error being reported matters more
        }
    }

    private void freeBuffers() {
        if (metaDevice != null) {
            cudaSetDevice(device);
            cudaFree(metaDevice);
            cudaFreeHost(metaHost);
            metaDevice = null;
            metaHost = null;
        }
        if (ownsStream && stream != null && !stream.isNull()) {
            cudaSetDevice(device);
            cudaStreamDestroy(stream);
        }
    }

    private void setDevice() {
        check(cudaSetDevice(device), rank, "cudaSetDevice(" + device + ")");
    }

    /** "stream 0x..., cuda:1 (this thread's current device: 1)" for error messages. */
    private String streamAndDevice() {
        int[] current = {-1};
        int r = cudaGetDevice(current);
        return "stream " + Addresses.hex(stream.address()) + ", rank's GPU cuda:" + device + " (this thread's current device: "
                + (r == cudaSuccess ? "cuda:" + current[0] : "unknown, cudaGetDevice error " + r) + ")";
    }

    /**
     * Before a call reaches NCCL: asks CUDA what each buffer's address is. Memory that is not device (or managed)
     * memory of this rank's GPU would make NCCL's kernels fault ("illegal memory access", after which the whole
     * CUDA context is unusable), so it is refused here with the address named. Also records the call's buffers,
     * stream and device for the message of an error that surfaces later on the stream.
     */
    private void checkPointers(CollectiveCall call, CommBuffer send, CommBuffer recv) {
        StringBuilder where = new StringBuilder(call.describe()).append(" on ");
        for (String role : new String[] {"send", "recv"}) {
            CommBuffer b = role.equals("send") ? send : recv;
            if (b == null) {
                continue;
            }
            DeviceBuffer db = (DeviceBuffer) b;
            where.append(role).append(' ').append(Addresses.hex(db.address())).append(" (").append(db.bytes()).append(" bytes), ");
            if (db.count() == 0) {
                continue;
            }
            Long known = checkedBuffers.get(db.address());
            if (!options.verifyCalls() && known != null && known >= db.bytes()) {
                continue;       // fast mode: a buffer already checked is not asked about again (about 1 us per query)
            }
            if (attributes == null) {
                attributes = new cudaPointerAttributes();
            }
            int r = cudaPointerGetAttributes(attributes, ptr(db));
            if (r != cudaSuccess) {
                cudaGetLastError();     // a failed query only loses this check; clear it so the call itself decides
                continue;
            }
            int type = attributes.type();
            if ((type != cudaMemoryTypeDevice && type != cudaMemoryTypeManaged) || attributes.device() != device) {
                throw new IllegalArgumentException("rank " + rank + ": " + call.describe() + ": the " + role + " buffer at "
                        + Addresses.hex(db.address()) + " (" + db.bytes() + " bytes) is not device memory of cuda:" + device
                        + ": CUDA says it is " + memoryType(type) + (type == cudaMemoryTypeDevice || type == cudaMemoryTypeManaged
                        ? " of cuda:" + attributes.device() : "") + " (freed, never allocated, or another GPU's memory)");
            }
            checkedBuffers.put(db.address(), db.bytes());
        }
        where.append(streamAndDevice());
        lastLaunch = where.toString();
    }

    static String memoryType(int type) {
        return switch (type) {
            case 0 -> "unregistered host memory";
            case 1 -> "pinned host memory";
            case 2 -> "device memory";
            case 3 -> "managed memory";
            default -> "memory of type " + type;
        };
    }

    // ---- helpers ----

    private static int requireGpus() {
        int gpus = NcclNatives.gpuCount();
        if (gpus == 0) {
            throw new NcclUnavailableException("no GPU usable by NCCL here: " + NcclNatives.whyNoGpu()
                    + " (use MpjCommunicator or RingCommunicator on the CPU)");
        }
        return gpus;
    }

    private static CUstream_st makeStream(NcclOptions options, int rank) {
        if (options.stream() != 0) {
            CUstream_st given = new CUstream_st(Addresses.at(options.stream()));
            if (given.address() != options.stream()) {
                throw new IllegalStateException("rank " + rank + ": the stream handle " + Addresses.hex(options.stream())
                        + " became " + Addresses.hex(given.address()) + " in JavaCPP");
            }
            return given;
        }
        // A blocking stream: ordered after work on the legacy default stream, as the caller expects.
        CUstream_st s = new CUstream_st();
        check(cudaStreamCreate(s), rank, "cudaStreamCreate");
        return s;
    }

    /** NCCL's config with every field at "undefined" except blocking (NCCL_CONFIG_INITIALIZER in Java). */
    static ncclConfig_t config(boolean blocking) {
        ncclConfig_t c = new ncclConfig_t();
        c.size(Loader.sizeof(ncclConfig_t.class)).magic(NCCL_API_MAGIC).version(NCCL_VERSION_CODE)
                .blocking(blocking ? 1 : 0)
                .cgaClusterSize(CONFIG_UNDEF_INT).minCTAs(CONFIG_UNDEF_INT).maxCTAs(CONFIG_UNDEF_INT)
                .netName(null).splitShare(CONFIG_UNDEF_INT).trafficClass(CONFIG_UNDEF_INT).commName(null)
                .collnetEnable(CONFIG_UNDEF_INT).CTAPolicy(CONFIG_UNDEF_INT).shrinkShare(CONFIG_UNDEF_INT)
                .nvlsCTAs(CONFIG_UNDEF_INT).nChannelsPerNetPeer(CONFIG_UNDEF_INT).nvlinkCentricSched(CONFIG_UNDEF_INT)
                .graphUsageMode(CONFIG_UNDEF_INT).numRmaCtx(CONFIG_UNDEF_INT);
        return c;
    }

    private void requireMine(String what, CommBuffer a, CommBuffer b) {
        for (CommBuffer x : new CommBuffer[] {a, b}) {
            if (x == null) {
                continue;
            }
            if (!(x instanceof DeviceBuffer db)) {
                throw new IllegalArgumentException(what + ": NCCL moves GPU memory, but this buffer is on the host."
                        + " Copy it to the GPU (a CUDA tensor or DeviceArray), or use MpjCommunicator / RingCommunicator"
                        + " for host arrays");
            }
            if (db.device() != device) {
                throw new IllegalArgumentException(what + ": buffer is on cuda:" + db.device() + " but rank " + rank
                        + " of this communicator uses cuda:" + device);
            }
        }
    }

    private static Pointer ptr(CommBuffer b) {
        return Addresses.at(((DeviceBuffer) b).address());
    }

    static int ncclType(CommBuffer b) {
        return ncclType(b.dataType());
    }

    static int ncclType(DataType t) {
        return switch (t) {        // ncclDataType_t values (nccl.h)
            case INT8 -> org.bytedeco.cuda.global.nccl.ncclInt8;
            case INT32 -> org.bytedeco.cuda.global.nccl.ncclInt32;
            case INT64 -> org.bytedeco.cuda.global.nccl.ncclInt64;
            case FLOAT32 -> org.bytedeco.cuda.global.nccl.ncclFloat32;
            case FLOAT64 -> org.bytedeco.cuda.global.nccl.ncclFloat64;
        };
    }

    static int ncclOp(Reduction op) {
        return switch (op) {
            case SUM -> org.bytedeco.cuda.global.nccl.ncclSum;
            case AVG -> org.bytedeco.cuda.global.nccl.ncclAvg;
            case MAX -> org.bytedeco.cuda.global.nccl.ncclMax;
            case MIN -> org.bytedeco.cuda.global.nccl.ncclMin;
            case PROD -> org.bytedeco.cuda.global.nccl.ncclProd;
        };
    }

    private static void check(int cudaError, int rank, String what) {
        if (cudaError != cudaSuccess) {
            throw new CommException("rank " + rank + ": " + what + " failed: CUDA error " + cudaError + " ("
                    + cudaGetErrorString(cudaError).getString() + ")");
        }
    }

    private static String capitalized(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
