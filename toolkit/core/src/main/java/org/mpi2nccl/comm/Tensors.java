package org.mpi2nccl.comm;

import java.util.Arrays;
import org.mpi2nccl.tensor.DeviceMemoryBackend;
import org.mpi2nccl.tensor.NDArray;

/**
 * The collectives of a {@link Communicator} on {@link NDArray}s of either device, in place ({@code send ==
 * recv}) or out of place. A GPU array is handed over as device memory (NCCL works on it there; the MPI route
 * stages it through the host); a CPU array goes through a {@code float[]} copy, which is what MPJ sends.
 * Arrays must be contiguous (call {@code compact()} on a strided view).
 */
public final class Tensors {
    private Tensors() {
    }

    public static void allReduce(Communicator c, NDArray array, Reduction op) {
        allReduce(c, array, array, op);
    }

    public static void allReduce(Communicator c, NDArray send, NDArray recv, Reduction op) {
        run(c, send, recv, true, (s, r) -> c.allReduce(s, r, op));
    }

    public static void broadcast(Communicator c, NDArray array, int root) {
        broadcast(c, array, array, root);
    }

    /** {@code send} is read on the root only. */
    public static void broadcast(Communicator c, NDArray send, NDArray recv, int root) {
        run(c, send, recv, c.rank() == root, (s, r) -> c.broadcast(s, r, root));
    }

    /** {@code recv} is written on the root only (it may be null elsewhere). */
    public static void reduce(Communicator c, NDArray send, NDArray recv, Reduction op, int root) {
        run(c, send, c.rank() == root ? recv : null, true, (s, r) -> c.reduce(s, r, op, root));
    }

    /** {@code recv} holds size() x send.size() elements, rank by rank. */
    public static void allGather(Communicator c, NDArray send, NDArray recv) {
        run(c, send, recv, true, c::allGather);
    }

    /** {@code send} holds size() x recv.size() elements; rank r gets block r of the reduction. */
    public static void reduceScatter(Communicator c, NDArray send, NDArray recv, Reduction op) {
        run(c, send, recv, true, (s, r) -> c.reduceScatter(s, r, op));
    }

    public static void send(Communicator c, NDArray array, int peer) {
        run(c, array, null, true, (s, r) -> c.send(s, peer));
    }

    public static void recv(Communicator c, NDArray array, int peer) {
        run(c, null, array, false, (s, r) -> c.recv(r, peer));
    }

    @FunctionalInterface
    private interface Body {
        void run(CommBuffer send, CommBuffer recv);
    }

    /** Views or copies of the arrays, the call, and (for CPU arrays) the result copied back. */
    private static void run(Communicator c, NDArray send, NDArray recv, boolean readSend, Body body) {
        NDArray any = send != null ? send : recv;
        if (any == null) {
            throw new IllegalArgumentException("no array given");
        }
        for (NDArray a : new NDArray[] {send, recv}) {
            if (a != null && !a.isContiguous()) {
                throw new IllegalArgumentException("collectives need contiguous arrays; got a strided view of shape "
                        + Arrays.toString(a.shape()) + " (call compact() and copy the result back)");
            }
            if (a != null && a.device().isCpu() != any.device().isCpu()) {
                throw new IllegalArgumentException("send is on " + (send == null ? "?" : send.device()) + " but recv is on "
                        + (recv == null ? "?" : recv.device()) + ": put both on one device");
            }
        }
        boolean inPlace = send != null && recv != null && send.storage() == recv.storage() && send.offset() == recv.offset()
                && send.size() == recv.size();
        if (any.device().isCpu()) {
            HostBuffer s = send == null ? null : toHost(send, readSend);
            HostBuffer r = inPlace ? s : recv == null ? null : HostBuffer.allocate(DataType.FLOAT32, recv.size());
            body.run(s, r);
            if (recv != null) {
                recv.backend().copyFromHost((float[]) r.array(), 0, recv.storage(), recv.offset(), r.length());
            }
        } else {
            DeviceMemoryBackend gpu = (DeviceMemoryBackend) any.backend();
            gpu.synchronize();                        // the arrays' pending writes are queued on the backend's stream
            CommBuffer s = send == null ? null : device(gpu, send);
            CommBuffer r = inPlace ? s : recv == null ? null : device(gpu, recv);
            body.run(s, r);
            c.synchronize();
        }
    }

    private static HostBuffer toHost(NDArray a, boolean read) {
        HostBuffer h = HostBuffer.allocate(DataType.FLOAT32, a.size());
        if (read) {
            a.backend().copyToHost(a.storage(), a.offset(), (float[]) h.array(), 0, h.length());
        }
        return h;
    }

    private static DeviceBuffer device(DeviceMemoryBackend gpu, NDArray a) {
        return DeviceBuffer.wrap(gpu.deviceAddress(a.storage()) + a.offset() * 4L, a.size(), DataType.FLOAT32,
                a.device().index());
    }
}
