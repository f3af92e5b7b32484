package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.nccl.ncclCommInitAll;
import static org.bytedeco.cuda.global.nccl.ncclCommInitRankConfig;
import static org.bytedeco.cuda.global.nccl.ncclGetUniqueId;
import static org.mpi2nccl.comm.nccl.NcclException.SUCCESS;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.cuda.nccl.ncclUniqueId;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;
import org.mpi2nccl.comm.Deadline;

/**
 * How NCCL communicators are made, as in the seed: rank 0 calls {@code ncclGetUniqueId}, the id's 128 bytes reach
 * every rank through a {@link Rendezvous}, each rank calls {@code ncclCommInitRank} on its own GPU; or, for several
 * GPUs of one process, {@code ncclCommInitAll}. The public entry points are on {@link NcclCommunicator}.
 */
final class NcclBootstrap {
    private NcclBootstrap() {
    }

    static NcclCommunicator init(Rendezvous rendezvous, int rank, int size, NcclOptions options) {
        if (size < 1 || rank < 0 || rank >= size) {
            throw new IllegalArgumentException("NCCL init: rank " + rank + " of " + size + " is not a rank (0.." + (size - 1) + ")");
        }
        int gpus = NcclCuda.requireGpus();
        int device = options.device() >= 0 ? options.device() : rank % gpus;
        if (device >= gpus) {
            throw new IllegalArgumentException("rank " + rank + ": CUDA device " + device + " does not exist (this process sees "
                    + gpus + " GPU(s); check CUDA_VISIBLE_DEVICES)");
        }
        NcclCuda.setDevice(device, rank);
        // The Java side of the call is made before the clocks start (JavaCPP's classes load on first use): the times are
        // the rendezvous and NCCL's own init, and rank 0's init does not also wait for rank 1 loading classes.
        ncclUniqueId uid = new ncclUniqueId();
        ncclComm comm = new ncclComm();
        ncclConfig_t config = NcclTypes.config(options);
        String what = "ncclCommInitRank (rank " + rank + " of " + size + ", GPU " + device + ", id via " + rendezvous.describe() + ")";
        Deadline deadline = Deadline.after(options.timeout());
        long t0 = System.nanoTime();
        byte[] id = null;
        if (rank == 0 && !(rendezvous instanceof GivenId)) {
            id = uniqueId(rank);
        }
        id = rendezvous.share(rank, size, id, options.timeout());
        long t1 = System.nanoTime();
        new BytePointer(uid).put(id);
        if (options.blocking()) {
            initBlocking(comm, size, uid, rank, device, config, what, deadline);
        } else {
            int r = ncclCommInitRankConfig(comm, size, uid, rank, config);
            NcclWaits.awaitComm(comm, r, rank, what, deadline, null);
        }
        long t2 = System.nanoTime();
        CUstream_st stream = NcclCuda.makeStream(options, rank);
        return new NcclCommunicator(comm, rank, size, device, options, stream, options.stream() == 0, false, t1 - t0, t2 - t1);
    }

    /**
     * A blocking ncclCommInitRank waits inside NCCL until every rank has joined; it runs on a helper thread so that
     * this thread can give up at the deadline with an error instead of hanging. (A timed-out init cannot be aborted
     * safely while NCCL is still inside it: the helper thread is left behind, and the rank should end.)
     */
    private static void initBlocking(ncclComm comm, int size, ncclUniqueId uid, int rank, int device, ncclConfig_t config,
                                     String what, Deadline deadline) {
        int r = NcclWaits.bounded("nccl-init-rank-" + rank, rank, what, deadline, () -> {
            NcclCuda.check(cudaSetDevice(device), rank, "cudaSetDevice(" + device + ") on the init thread");
            return ncclCommInitRankConfig(comm, size, uid, rank, config);
        }, null, "every rank to join: is a rank missing, or stuck before its init? (NCCL keeps waiting on a helper"
                + " thread: end this rank)");
        if (r != SUCCESS) {
            String last = NcclException.lastError(comm);
            NcclWaits.abortQuietly(comm);
            throw new NcclException(rank, what, r, last);
        }
    }

    /** {@code ncclGetUniqueId} as its 128 bytes. */
    static byte[] uniqueId(int rank) {
        ncclUniqueId uid = new ncclUniqueId();
        NcclException.check(rank, "ncclGetUniqueId", ncclGetUniqueId(uid), null);
        byte[] id = new byte[128];
        new BytePointer(uid).get(id);
        return id;
    }

    /** The id is already on every rank (passed in by the caller): nothing to share, nothing to make. */
    record GivenId(byte[] id) implements Rendezvous {
        @Override
        public byte[] share(int rank, int size, byte[] fromRoot, Duration timeout) {
            return id;
        }

        @Override
        public String describe() {
            return "bytes given by the caller";
        }
    }

    static List<NcclCommunicator> initAll(NcclOptions options, int... devices) {
        int gpus = NcclCuda.requireGpus();
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
            NcclCuda.check(cudaSetDevice(devices[i]), i, "cudaSetDevice(" + devices[i] + ")");
            CUstream_st s = NcclCuda.makeStream(options, i);
            out.add(new NcclCommunicator(new ncclComm(comms.get(i)), i, devices.length, devices[i],
                    options.synchronous(true), s, true, true, 0, t1 - t0));
        }
        return out;
    }
}
