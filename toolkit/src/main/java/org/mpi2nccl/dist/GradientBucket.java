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
 * <p>On a GPU each parameter's gradient <em>is</em> its slice of the bucket (a view, as PyTorch's
 * {@code gradient_as_bucket_view}): backward accumulates straight into the bucket and the all-reduce averages
 * the gradients in place, so there is nothing to copy. {@link #pack} and {@link #unpack} copy only gradients
 * that are not such a view (on the CPU, where MPJ needs a Java array, or a gradient someone replaced).
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
    private final NDArray[] views;       // GPU buckets: each parameter's gradient as a view of the bucket
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
            views = null;
        } else {
            host = null;
            CudaBackend gpu = (CudaBackend) backend;
            device = backend.allocate(n);
            backend.fill(device, 0, n, 0f);
            long address = gpu.deviceAddress(device);
            buffer = DeviceBuffer.wrap(address, n, DataType.FLOAT32, backend.device().index());
            views = new NDArray[params.size()];
            for (int i = 0; i < views.length; i++) {
                Tensor p = params.get(i);
                NDArray old = p.grad();
                long at = offsets[i];
                NDArray v = ArrayScope.outside(() -> NDArray.onStorage(gpu.view(device, at, p.size()), p.shape()));
                if (old != null && !old.isClosed()) v.assign(old);       // keep a gradient already computed
                views[i] = v;
                p.setGrad(v);
                if (old != null) old.close();
            }
        }
    }

    /** True when parameter {@code i}'s gradient is still its view of the bucket (nothing to copy). */
    private boolean isView(int i) {
        return views != null && params.get(i).grad() == views[i] && !views[i].isClosed();
    }

    /**
     * Zeroes this bucket's gradients before a step: one fill of the whole bucket where every gradient is still its
     * view (a GPU launches one kernel instead of one per parameter), else each parameter's own.
     */
    void zeroGradients() {
        boolean allViews = views != null;
        for (int i = 0; allViews && i < params.size(); i++) allViews = isView(i);
        if (allViews) backend.fill(device, 0, elements, 0f);
        else for (Tensor p : params) p.zeroGrad();
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
            if (isView(i)) continue;
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
            if (views != null && !views[i].isClosed()) {
                p.setGrad(views[i]);                // back to accumulating in the bucket from the next step
                g.close();
            }
        }
    }

    /** Copies the reduced values back into the gradients (creating the gradient of a parameter that had none). */
    void unpack() {
        for (int i = 0; i < params.size(); i++) {
            if (isView(i)) continue;
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

    /** Gives every parameter a gradient of its own again (a copy of its view), then frees the bucket. */
    @Override
    public void close() {
        if (views != null) {
            for (int i = 0; i < views.length; i++) {
                if (isView(i)) {
                    NDArray own = ArrayScope.outside(views[i]::copy);
                    params.get(i).setGrad(own);
                }
                views[i].close();
            }
        }
        if (device != null) device.close();
    }

    @Override
    public String toString() {
        return "bucket " + index + ": " + params.size() + " tensors, " + elements + " floats";
    }
}
