package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.nccl.ncclCommFinalize;
import static org.bytedeco.cuda.global.nccl.ncclCommInitAll;
import static org.bytedeco.cuda.global.nccl.ncclGroupEnd;
import static org.bytedeco.cuda.global.nccl.ncclGroupStart;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.PointerPointer;

/**
 * Several GPUs driven by one process: {@code ncclCommInitAll} makes one communicator per GPU at once (no unique id
 * to share: the process already holds every rank), and {@link #closeAll} finalizes them together in one group. Their
 * collectives are issued together inside {@link NcclCommunicator#group}. The entry points are
 * {@link NcclCommunicator#initAll} and {@link NcclCommunicator#closeAll}.
 */
final class NcclClique {
    private NcclClique() {
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

    /**
     * Finalizes the communicators made by {@link #initAll} together in one group, then destroys each. One made
     * otherwise (its ranks in other processes) is closed on its own, as {@link NcclCommunicator#close} does:
     * finalizing it here too would finalize it twice.
     */
    static void closeAll(List<NcclCommunicator> clique) {
        ncclGroupStart();
        for (NcclCommunicator c : clique) {
            if (c.inClique && c.handle() != null && !c.isBroken()) {
                c.setDevice();
                ncclCommFinalize(c.handle());
            }
        }
        ncclGroupEnd();
        for (NcclCommunicator c : clique) {
            c.close();
        }
    }
}
