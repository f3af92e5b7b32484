package org.mpi2nccl.dist;

import java.util.List;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.DeviceBuffer;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Storage;

/**
 * A few parameters' gradients packed one after the other into one flat buffer, so that they are all-reduced
 * by a single collective instead of one call per tensor (every call costs a fixed latency: tens of
 * microseconds in NCCL, far more through MPI). On the CPU the buffer is a Java {@code float[]} (what MPJ
 * sends); on a GPU it is device memory, which NCCL reduces in place and the MPI route stages through the host.
 *
 * <p>{@link #pack} copies the gradients in, {@link #unpack} copies the reduced values back (device-local copies
 * on a GPU, queued on the backend's stream).
 */
final class GradientBucket implements AutoCloseable {
    final int index;
    final List<Tensor> params;
    private final long[] offsets;
    final long elements;
    private final Backend backend;
    private final float[] host;          // CPU buckets
    private final Storage device;        // GPU buckets
    private final CommBuffer buffer;
    int ready;                           // parameters whose gradient is final in this step

    GradientBucket(int index, List<Tensor> params, Backend backend) {
        this.index = index;
        this.params = List.copyOf(params);
        this.backend = backend;
        this.offsets = new long[params.size()];
        long n = 0;
        for (int i = 0; i < params.size(); i++) {
            offsets[i] = n;
            n += params.get(i).size();
        }
        this.elements = n;
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a gradient bucket of " + n + " floats does not fit a Java array: lower the bucket size");
        }
        if (backend.device().isCpu()) {
            host = new float[(int) n];
            device = null;
            buffer = HostBuffer.of(host);
        } else {
            host = null;
            device = backend.allocate(n);
            long address = ((CudaBackend) backend).deviceAddress(device);
            buffer = DeviceBuffer.wrap(address, n, DataType.FLOAT32, backend.device().index());
        }
    }

    /** What the communicator reduces. */
    CommBuffer buffer() {
        return buffer;
    }

    long bytes() {
        return elements * 4;
    }

    /** Copies every parameter's gradient into the flat buffer (zeros for a parameter that got none). */
    void pack() {
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i);
            int n = (int) p.size();
            NDArray g = p.grad();
            if (g == null || g.isClosed()) {
                if (host != null) java.util.Arrays.fill(host, (int) offsets[i], (int) offsets[i] + n, 0f);
                else backend.fill(device, offsets[i], n, 0f);
                continue;
            }
            try (NDArray c = g.compact()) {
                if (host != null) backend.copyToHost(c.storage(), 0, host, (int) offsets[i], n);
                else backend.copy(c.storage(), 0, device, offsets[i], n);
            }
        }
    }

    /** Copies the reduced values back into the gradients (creating the gradient of a parameter that had none). */
    void unpack() {
        for (int i = 0; i < params.size(); i++) {
            Tensor p = params.get(i);
            int n = (int) p.size();
            NDArray g = p.grad();
            if (g == null || g.isClosed() || !g.isCompact()) {
                g = ArrayScope.outside(() -> NDArray.zeros(p.device(), p.shape()));
                p.setGrad(g);
            }
            if (host != null) backend.copyFromHost(host, (int) offsets[i], g.storage(), 0, n);
            else backend.copy(device, offsets[i], g.storage(), 0, n);
        }
    }

    @Override
    public void close() {
        if (device != null) device.close();
    }

    @Override
    public String toString() {
        return "bucket " + index + ": " + params.size() + " tensors, " + elements + " floats";
    }
}
