package org.mpi2nccl.parallel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.DeviceBuffer;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.DeviceMemoryBackend;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Storage;

/**
 * A model's gradients grouped for all-reduce ({@link DataParallel}, lessons 03 and 05). Every all-reduce call costs a
 * fixed latency (tens of microseconds in NCCL, far more through MPI), so instead of one call per tensor the gradients
 * are packed one after the other into a few flat {@link Bucket}s, and each bucket is averaged by a single call.
 *
 * <p>The plan ({@link #plan}): parameters in reverse registration order (roughly the order backward finishes them:
 * the last layer's gradients are ready first), filled greedily into buckets of at most {@code bucketBytes}; a
 * parameter larger than that gets a bucket of its own. Every rank builds the same plan from the same model, so the
 * ranks agree on the buckets without talking.
 */
public final class GradientBuckets implements AutoCloseable {
    private final List<Bucket> buckets;
    private final Map<Tensor, Bucket> byParam = new IdentityHashMap<>();

    /** The buckets of {@code plan} (each list: one bucket's parameters, in all-reduce order), in this backend's memory. */
    public GradientBuckets(List<List<Tensor>> plan, Backend backend) {
        List<Bucket> out = new ArrayList<>();
        try {
            for (List<Tensor> params : plan) out.add(new Bucket(out.size(), params, backend));
        } catch (RuntimeException e) {
            out.forEach(Bucket::close);
            throw e;
        }
        this.buckets = List.copyOf(out);
        for (Bucket b : buckets) for (Tensor p : b.params) byParam.put(p, b);
    }

    /** The default plan: {@code params} (in the model's order) in backward's order, filled into buckets of {@code bucketBytes}. */
    public static List<List<Tensor>> plan(List<Tensor> params, long bucketBytes) {
        List<Tensor> order = new ArrayList<>(params);
        Collections.reverse(order);
        return fill(order, bucketBytes);
    }

    /** Parameters in the given order filled greedily into buckets of at most {@code bucketBytes}. */
    public static List<List<Tensor>> fill(List<Tensor> order, long bucketBytes) {
        if (bucketBytes < 4) throw new IllegalArgumentException("bucket size must be at least 4 bytes (one float), got " + bucketBytes);
        List<List<Tensor>> plan = new ArrayList<>();
        List<Tensor> current = new ArrayList<>();
        long currentBytes = 0;
        for (Tensor p : order) {
            long bytes = p.size() * 4;
            if (!current.isEmpty() && currentBytes + bytes > bucketBytes) {
                plan.add(current);
                current = new ArrayList<>();
                currentBytes = 0;
            }
            current.add(p);
            currentBytes += bytes;
        }
        if (!current.isEmpty()) plan.add(current);
        return plan;
    }

    /** The bucket holding {@code param}'s gradient, or null for a tensor that is not a parameter of the model. */
    Bucket of(Tensor param) {
        return byParam.get(param);
    }

    /** Bucket {@code i}, in all-reduce order. */
    public Bucket get(int i) {
        return buckets.get(i);
    }

    public int size() {
        return buckets.size();
    }

    /**
     * What {@code optimizer.zeroGrad()} does, bucket by bucket: every model parameter's gradient (a bucket whose
     * gradients are all its views is one fill) and those of the optimizer's parameters outside the model.
     */
    public void zeroGradients(Optimizer optimizer) {
        for (Bucket b : buckets) b.zeroGradients();
        for (Tensor p : optimizer.params()) if (of(p) == null) p.zeroGrad();
    }

    /** Each bucket's number of floats, in all-reduce order. */
    long[] elements() {
        return buckets.stream().mapToLong(b -> b.elements).toArray();
    }

    public long totalBytes() {
        long n = 0;
        for (Bucket b : buckets) n += b.bytes();
        return n;
    }

    @Override
    public void close() {
        buckets.forEach(Bucket::close);
    }

    /**
     * A few parameters' gradients packed one after the other into one flat buffer, all-reduced by a single call. On
     * the CPU the buffer is a Java {@code float[]} (what MPJ sends); on a GPU it is device memory, which NCCL reduces
     * in place and the MPI route copies through the host.
     *
     * <p>On a GPU each parameter's gradient <em>is</em> its slice of the bucket (a view, as PyTorch's
     * {@code gradient_as_bucket_view}): backward accumulates straight into the bucket and the all-reduce averages the
     * gradients in place, so there is nothing to copy. {@link #pack} and {@link #unpack} copy only gradients that are
     * not such a view (on the CPU, where MPJ needs a Java array, or a gradient someone replaced).
     */
    public static final class Bucket implements AutoCloseable {
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

        Bucket(int index, List<Tensor> params, Backend backend) {
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
                DeviceMemoryBackend gpu = (DeviceMemoryBackend) backend;
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

        /** The bucket's parameters, in the order their gradients lie in the buffer. */
        public List<Tensor> params() {
            return params;
        }

        /** Whether backward has finished every gradient of this bucket in this step. */
        boolean complete() {
            return ready == params.size();
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
        public CommBuffer buffer() {
            return buffer;
        }

        public long bytes() {
            return elements * 4;
        }

        /** Copies every parameter's gradient into the flat buffer (zeros for a parameter that got none). */
        public void pack() {
            for (int i = 0; i < params.size(); i++) {
                if (isView(i)) continue;
                Tensor p = params.get(i);
                int n = (int) p.size();
                NDArray g = p.grad();
                if (g == null || g.isClosed()) {
                    if (host != null) Arrays.fill(host, (int) offsets[i], (int) offsets[i] + n, 0f);
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
        public void unpack() {
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
}
