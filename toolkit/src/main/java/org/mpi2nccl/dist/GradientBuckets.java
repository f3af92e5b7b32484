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
 */
final class GradientBuckets implements AutoCloseable {
    final List<GradientBucket> buckets;
    private final Map<Tensor, GradientBucket> byParam = new IdentityHashMap<>();

    GradientBuckets(List<Tensor> params, long bucketBytes, Backend backend) {
        if (bucketBytes < 4) throw new IllegalArgumentException("bucket size must be at least 4 bytes (one float), got " + bucketBytes);
        List<Tensor> order = new ArrayList<>(params);
        Collections.reverse(order);
        List<GradientBucket> out = new ArrayList<>();
        List<Tensor> current = new ArrayList<>();
        long currentBytes = 0;
        try {
            for (Tensor p : order) {
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
        } catch (RuntimeException e) {
            out.forEach(GradientBucket::close);
            throw e;
        }
        this.buckets = List.copyOf(out);
        for (GradientBucket b : buckets) for (Tensor p : b.params) byParam.put(p, b);
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
