package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.nccl.ncclCommInitRankConfig;
import static org.bytedeco.cuda.global.nccl.ncclGetUniqueId;

import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.cuda.nccl.ncclUniqueId;
import org.bytedeco.javacpp.BytePointer;
import org.mpi2nccl.comm.Deadline;

/**
 * Lesson 04: how the ranks of an NCCL communicator find each other, in the order nccl-tests, NCCL's examples and
 * the needle course notebook that moved from mpi4py to NCCL do it. Read {@link #init} and the {@link Rendezvous}
 * interface; the rest is error handling.
 * <ol>
 *   <li>{@code cudaSetDevice}: each rank picks its GPU (NCCL works on the current device);</li>
 *   <li>rank 0 calls {@code ncclGetUniqueId}: 128 bytes naming the communicator about to be made;</li>
 *   <li>the bytes reach every rank over any channel ({@link Rendezvous}: an MPJ broadcast, {@code tcp://},
 *       {@code file://});</li>
 *   <li>every rank calls {@code ncclCommInitRank(comm, size, id, rank)}; it returns once all have joined.</li>
 * </ol>
 * Distributed code must never hang: the channel and the init each wait at most the timeout, then say who is
 * missing ({@link NcclWaits#initRank}). The public entry points are on {@link NcclCommunicator}.
 */
final class NcclBootstrap {
    private NcclBootstrap() {
    }

    static NcclCommunicator init(Rendezvous rendezvous, int rank, int size, NcclOptions options) {
        int device = NcclCuda.deviceOf(rank, size, options);
        NcclCuda.setDevice(device, rank);                                   // 1. this rank's GPU
        // JavaCPP's classes load on first use: made before the clocks start, so that the times are the
        // rendezvous and NCCL's own init.
        ncclUniqueId uid = new ncclUniqueId();
        ncclComm comm = new ncclComm();
        ncclConfig_t config = NcclTypes.config(options);
        String what = "ncclCommInitRank (rank " + rank + " of " + size + ", GPU " + device + ", id via " + rendezvous.describe() + ")";
        Deadline deadline = Deadline.after(options.timeout());
        long t0 = System.nanoTime();

        byte[] id = null;
        if (rank == 0 && rendezvous.rootMakesId()) {
            id = uniqueId(rank);                                            // 2. ncclGetUniqueId on rank 0
        }
        id = rendezvous.share(rank, size, id, options.timeout());           // 3. the 128 bytes to every rank
        long t1 = System.nanoTime();
        new BytePointer(uid).put(id);

        NcclWaits.initRank(comm, rank, device, options.blocking(), what, deadline,
                () -> ncclCommInitRankConfig(comm, size, uid, rank, config));   // 4. every rank joins
        long t2 = System.nanoTime();

        CUstream_st stream = NcclCuda.makeStream(options, rank);
        return new NcclCommunicator(comm, rank, size, device, options, stream, options.stream() == 0, false, t1 - t0, t2 - t1);
    }

    /** {@code ncclGetUniqueId} as its 128 bytes. */
    static byte[] uniqueId(int rank) {
        ncclUniqueId uid = new ncclUniqueId();
        NcclException.check(rank, "ncclGetUniqueId", ncclGetUniqueId(uid), null);
        byte[] id = new byte[128];
        new BytePointer(uid).get(id);
        return id;
    }
}
