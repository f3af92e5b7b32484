package org.mpi2nccl.dist;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.Backend;

/**
 * How a model's gradients are grouped for all-reduce: parameters in reverse registration order (roughly the
 * order backward finishes them: the last layer's gradients are ready first) filled greedily into buckets of
 * at most {@code bucketBytes}; a parameter larger than that gets a bucket of its own. Every rank builds the
 * same plan from the same model, so the ranks agree on the buckets without talking.
 *
 * <p>With {@code lastBucketBytes} > 0 the first layers' parameters, up to that many bytes, get the last bucket to
 * themselves. Backward finishes them last, so nothing is left to hide that bucket's all-reduce: the optimizer waits
 * for it (the step's communication tail). Kept small, it is a latency-bound call, and the layers before it are
 * all-reduced while backward still computes the first layers.
 */
final class GradientBuckets implements AutoCloseable {
    final List<GradientBucket> buckets;
    private final Map<Tensor, GradientBucket> byParam = new IdentityHashMap<>();

    GradientBuckets(List<Tensor> params, long bucketBytes, long lastBucketBytes, Backend backend) {
        if (bucketBytes < 4) throw new IllegalArgumentException("bucket size must be at least 4 bytes (one float), got " + bucketBytes);
        if (lastBucketBytes < 0) throw new IllegalArgumentException("last bucket size must be >= 0 bytes (0: no bucket of its own), got " + lastBucketBytes);
        List<Tensor> order = new ArrayList<>(params);
        Collections.reverse(order);
        int tail = tailStart(order, lastBucketBytes);
        List<GradientBucket> out = new ArrayList<>();
        List<Tensor> current = new ArrayList<>();
        long currentBytes = 0;
        try {
            for (Tensor p : order.subList(0, tail)) {
                long bytes = p.size() * 4;
                if (!current.isEmpty() && currentBytes + bytes > bucketBytes) {
                    out.add(new GradientBucket(out.size(), current, backend));
                    current = new ArrayList<>();
                    currentBytes = 0;
                }
                current.add(p);
                currentBytes += bytes;
            }
            if (!current.isEmpty()) out.add(new GradientBucket(out.size(), current, backend));
            if (tail < order.size()) out.add(new GradientBucket(out.size(), order.subList(tail, order.size()), backend));
        } catch (RuntimeException e) {
            out.forEach(GradientBucket::close);
            throw e;
        }
        this.buckets = List.copyOf(out);
        for (GradientBucket b : buckets) for (Tensor p : b.params) byParam.put(p, b);
    }

    /**
     * Where the last bucket starts in backward's order: the longest run of the model's first parameters that fits in
     * {@code lastBucketBytes}, or no bucket of its own (the end) when that is none of them or all of them.
     */
    private static int tailStart(List<Tensor> order, long lastBucketBytes) {
        int start = order.size();
        long bytes = 0;
        while (start > 0 && bytes + order.get(start - 1).size() * 4 <= lastBucketBytes) bytes += order.get(--start).size() * 4;
        return start == 0 ? order.size() : start;
    }

    /** The bucket holding {@code param}'s gradient, or null for a tensor that is not a parameter of the model. */
    GradientBucket of(Tensor param) {
        return byParam.get(param);
    }

    /** Whether a tensor is a parameter of bucket {@code first} or a later one. */
    Predicate<Tensor> paramsFrom(int first) {
        Set<Tensor> in = Collections.newSetFromMap(new IdentityHashMap<>());
        for (GradientBucket b : buckets.subList(first, buckets.size())) in.addAll(b.params);
        return in::contains;
    }

    /**
     * What {@code optimizer.zeroGrad()} does, bucket by bucket: every model parameter's gradient (a bucket whose
     * gradients are all its views is one fill) and those of the optimizer's parameters outside the model.
     */
    void zeroGradients(Optimizer optimizer) {
        for (GradientBucket b : buckets) b.zeroGradients();
        for (Tensor p : optimizer.params()) if (of(p) == null) p.zeroGrad();
    }

    int size() {
        return buckets.size();
    }

    /** Each bucket's number of floats, in launch order. */
    long[] elements() {
        return buckets.stream().mapToLong(b -> b.elements).toArray();
    }

    long totalBytes() {
        long n = 0;
        for (GradientBucket b : buckets) n += b.bytes();
        return n;
    }

    @Override
    public void close() {
        buckets.forEach(GradientBucket::close);
    }
}
