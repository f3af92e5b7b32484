package org.mpi2nccl.comm.nccl;

import java.time.Duration;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;

/**
 * Test adapter: runs host-buffer calls on a GPU communicator by copying the buffers to the GPU, calling it on
 * device buffers, and copying back. Buffers that are slices of one another (in-place all-gather and
 * reduce-scatter) become slices of one device array, so NCCL's in-place paths are exercised too. Lets the
 * CPU communicators' checks ({@code CommunicatorChecks}) run unchanged against NCCL.
 */
final class DeviceRoundTrip implements Communicator {
    private final Communicator gpu;
    private final int device;

    DeviceRoundTrip(Communicator gpu, int device) {
        this.gpu = gpu;
        this.device = device;
    }

    @FunctionalInterface
    interface Call {
        void run(CommBuffer send, CommBuffer recv);
    }

    /** Copies in, calls, copies {@code recv} back. Either may be null. */
    private void roundTrip(CommBuffer send, CommBuffer recv, Call call) {
        HostBuffer hs = (HostBuffer) send;
        HostBuffer hr = (HostBuffer) recv;
        HostBuffer outer = hs == null ? hr : hr == null ? hs : contains(hs, hr) ? hs : contains(hr, hs) ? hr : null;
        if (outer != null) {
            try (DeviceArray a = DeviceArray.of(device, outer)) {
                call.run(slice(a, outer, hs), slice(a, outer, hr));
                if (hr != null) {
                    a.copyTo(outer);
                }
            }
        } else {
            try (DeviceArray s = DeviceArray.of(device, hs); DeviceArray r = DeviceArray.of(device, hr)) {
                call.run(s.buffer(), r.buffer());
                r.copyTo(hr);
            }
        }
    }

    private static boolean contains(HostBuffer outer, HostBuffer inner) {
        return outer.array() == inner.array() && inner.offset() >= outer.offset()
                && inner.offset() + inner.length() <= outer.offset() + outer.length();
    }

    private static CommBuffer slice(DeviceArray a, HostBuffer outer, HostBuffer inner) {
        return inner == null ? null : a.buffer().slice(inner.offset() - outer.offset(), inner.count());
    }

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, Reduction op) {
        roundTrip(send, recv, (s, r) -> gpu.allReduce(s, r, op));
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, int root) {
        roundTrip(send, recv, (s, r) -> gpu.broadcast(s, r, root));
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, Reduction op, int root) {
        roundTrip(send, recv, (s, r) -> gpu.reduce(s, r, op, root));
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv) {
        roundTrip(send, recv, gpu::allGather);
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, Reduction op) {
        roundTrip(send, recv, (s, r) -> gpu.reduceScatter(s, r, op));
    }

    @Override
    public void send(CommBuffer buffer, int peer) {
        roundTrip(buffer, null, (s, r) -> gpu.send(s, peer));
    }

    @Override
    public void recv(CommBuffer buffer, int peer) {
        roundTrip(null, buffer, (s, r) -> gpu.recv(r, peer));
    }

    @Override
    public void barrier() {
        gpu.barrier();
    }

    @Override
    public Communicator split(int color, int key) {
        Communicator c = gpu.split(color, key);
        return c == null ? null : new DeviceRoundTrip(c, device);
    }

    @Override
    public int rank() {
        return gpu.rank();
    }

    @Override
    public int size() {
        return gpu.size();
    }

    @Override
    public String kind() {
        return gpu.kind();
    }

    @Override
    public Duration timeout() {
        return gpu.timeout();
    }

    @Override
    public boolean isBroken() {
        return gpu.isBroken();
    }

    @Override
    public void close() {
        gpu.close();
    }
}
