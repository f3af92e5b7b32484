package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaFreeHost;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMallocHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyAsync;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.nccl.ncclAllGather;

import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Deadline;

/**
 * The metadata check on the GPU: before each collective this rank's few numbers describing the call (collective,
 * count, type, op, root, sequence number) go into its slot of a small device buffer, an in-place ncclAllGather fills
 * the other ranks' slots, and the host compares them ({@link CollectiveCall#requireSame}): ranks whose code paths
 * diverged get an error naming both calls instead of a hang. One tiny collective and one stream wait per call.
 * The buffers (device + pinned host) are made on first use and freed with the communicator.
 */
final class NcclMetadataCheck {
    private final NcclCommunicator owner;
    private Pointer device;
    private Pointer host;

    NcclMetadataCheck(NcclCommunicator owner) {
        this.owner = owner;
    }

    void verify(CollectiveCall call, Deadline d) {
        int size = owner.size();
        int rank = owner.rank();
        if (size == 1) {
            return;
        }
        ensureBuffers();
        int w = CollectiveCall.WORDS;
        LongPointer h = new LongPointer(host).capacity((long) size * w + 1);
        long[] mine = call.encode();
        h.position((long) rank * w).put(mine, 0, w);
        h.position(0);
        long slot = (long) rank * w * 8;
        Pointer devSlot = Addresses.at(device.address() + slot);
        Pointer hostSlot = Addresses.at(host.address() + slot);
        NcclCuda.check(cudaMemcpyAsync(devSlot, hostSlot, (long) w * 8, cudaMemcpyHostToDevice, owner.stream()), rank,
                "metadata copy for " + call.describe() + " (pinned host " + Addresses.hex(hostSlot.address()) + " -> device "
                        + Addresses.hex(devSlot.address()) + ", " + w * 8 + " bytes, " + owner.streamAndDevice() + ")");
        Pointer dev = device;
        owner.calls().lastLaunch(() -> "the metadata ncclAllGather for " + call.describe() + " (in place at " + Addresses.hex(dev.address())
                + ", " + size * w + " x int64, " + owner.streamAndDevice() + ")");
        owner.calls().complete(ncclAllGather(devSlot, device, w, NcclTypes.ncclType(DataType.INT64), owner.handle(), owner.stream()),
                call, d, "the metadata ncclAllGather");
        NcclCuda.check(cudaMemcpyAsync(host, device, (long) size * w * 8, cudaMemcpyDeviceToHost, owner.stream()), rank,
                "metadata copy back for " + call.describe() + " (device " + Addresses.hex(device.address()) + " -> pinned host "
                        + Addresses.hex(host.address()) + ", " + size * w * 8 + " bytes, " + owner.streamAndDevice() + ")");
        owner.calls().waitStream(call, d, "the metadata check (an all-gather every rank makes before each collective)");
        owner.calls().settle(call, d);
        long[] all = new long[size * w];
        h.get(all, 0, all.length);
        CollectiveCall[] calls = new CollectiveCall[size];
        for (int r = 0; r < size; r++) {
            calls[r] = CollectiveCall.decode(all, r * w);
        }
        CollectiveCall.requireSame(rank, calls);
    }

    /** One int64 of device scratch after the metadata slots (the barrier's all-reduce). */
    Pointer scratch() {
        ensureBuffers();
        return Addresses.at(device.address() + (long) owner.size() * CollectiveCall.WORDS * 8);
    }

    private void ensureBuffers() {
        if (device == null) {
            long bytes = ((long) owner.size() * CollectiveCall.WORDS + 1) * 8;
            Pointer dev = new Pointer();
            NcclCuda.check(cudaMalloc(dev, bytes), owner.rank(), "cudaMalloc (metadata, " + bytes + " bytes)");
            Pointer h = new Pointer();
            NcclCuda.check(cudaMallocHost(h, bytes), owner.rank(), "cudaMallocHost (metadata, " + bytes + " bytes)");
            device = dev;
            host = h;
        }
    }

    void free() {
        if (device != null) {
            cudaSetDevice(owner.device());
            cudaFree(device);
            cudaFreeHost(host);
            device = null;
            host = null;
        }
    }
}
