package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemset;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;

import org.bytedeco.javacpp.Pointer;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.DeviceBuffer;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.HostStaging;

/**
 * GPU memory for communicator tests and the bandwidth harness: {@code cudaMalloc}ed on one device, freed by
 * {@link #close()}. {@link #buffer()} is the view communicators take; copies to and from Java arrays go through
 * pinned memory. (Tensors use the CUDA backend's own memory; this is for raw buffers.)
 */
public final class DeviceArray implements AutoCloseable {
    private final int device;
    private final DataType type;
    private final long count;
    private Pointer pointer;

    private DeviceArray(int device, DataType type, long count, Pointer pointer) {
        this.device = device;
        this.type = type;
        this.count = count;
        this.pointer = pointer;
    }

    /** {@code count} elements of {@code type} on CUDA device {@code device}, zero-filled. */
    public static DeviceArray allocate(int device, DataType type, long count) {
        NcclNatives.load();
        check(cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        Pointer p = new Pointer();
        long bytes = Math.max(1, count * type.bytes());
        check(cudaMalloc(p, bytes), "cudaMalloc(" + bytes + " bytes) on GPU " + device);
        check(cudaMemset(p, 0, bytes), "cudaMemset");
        return new DeviceArray(device, type, count, p);
    }

    /** A GPU copy of a host buffer. */
    public static DeviceArray of(int device, HostBuffer host) {
        DeviceArray a = allocate(device, host.dataType(), host.count());
        a.copyFrom(host);
        return a;
    }

    public DeviceBuffer buffer() {
        if (pointer == null) {
            throw new IllegalStateException("device array used after close()");
        }
        return DeviceBuffer.wrap(pointer.address(), count, type, device);
    }

    public void copyFrom(HostBuffer host) {
        HostStaging.toDevice(host, buffer());
    }

    public void copyTo(HostBuffer host) {
        HostStaging.toHost(buffer(), host);
    }

    /** A new host copy of the whole array. */
    public HostBuffer toHost() {
        HostBuffer h = HostBuffer.allocate(type, count);
        copyTo(h);
        return h;
    }

    public int device() {
        return device;
    }

    @Override
    public void close() {
        if (pointer != null) {
            cudaSetDevice(device);
            cudaFree(pointer);
            pointer = null;
        }
    }

    static void check(int err, String what) {
        if (err != 0) {
            throw new CommException(what + " failed: CUDA error " + err + " (" + cudaGetErrorString(err).getString() + ")");
        }
    }
}
