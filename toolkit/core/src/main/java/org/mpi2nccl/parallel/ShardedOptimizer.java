package org.mpi2nccl.parallel;

import java.util.List;
import java.util.function.Function;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * An optimizer whose state is split over the ranks (ZeRO stage 1, lesson 07). Plain data parallelism
 * ({@link DataParallel}) keeps the whole optimizer state (SGD's momentum, Adam's two moments) on every rank, and every
 * rank computes the same update of the whole model. Here the model's parameters are laid end to end in one flat
 * vector, cut into {@code size} equal slices, and rank r owns slice r:
 * <ol>
 *   <li>a reduce-scatter averages the flat gradients, and rank r receives only the average of its slice;</li>
 *   <li>the wrapped optimizer updates only that slice, with state for that slice only (1/size of the memory);</li>
 *   <li>an all-gather puts the updated slices together, and every rank holds the whole updated model again.</li>
 * </ol>
 * Reduce-scatter plus all-gather is exactly how the ring all-reduce of lesson 02 works, so this sends as many bytes
 * as the all-reduce of plain data parallelism. Because SGD and Adam update every element on its own, the result is
 * the same as plain data parallelism up to float rounding (ShardedOptimizerTest checks it on 1 to 4 ranks).
 *
 * <p>A parameter count that does not divide by the number of ranks is padded with zeros up to {@code size x shard};
 * the padding has a zero gradient, keeps zero values and is never copied back into the model.
 *
 * <pre>{@code
 * ShardedOptimizer opt = new ShardedOptimizer(model.parameters(), comm, slice -> new Adam(slice, 1e-3f));
 * opt.zeroGrad();
 * loss.backward();          // this rank's gradients, not averaged
 * opt.step();               // reduce-scatter, update this rank's slice, all-gather
 * }</pre>
 */
public final class ShardedOptimizer implements AutoCloseable {
    private final List<Tensor> params;
    private final Communicator comm;
    private final Backend backend;
    private final long count;          // parameters of the model
    private final long shard;          // parameters each rank owns (the last rank's slice may end in padding)
    private final Device device;
    private final Tensor slice;        // this rank's slice of the parameters: what the wrapped optimizer updates
    private final Optimizer inner;

    /**
     * Wraps {@code optimizer}, made by {@code makeOptimizer} over this rank's slice only, and makes every rank's
     * parameters equal to rank 0's. Collective: every rank of {@code comm} must call it, with the same model.
     */
    public ShardedOptimizer(List<Tensor> params, Communicator comm, Function<List<Tensor>, Optimizer> makeOptimizer) {
        if (params.isEmpty()) throw new IllegalArgumentException("ShardedOptimizer: no parameters to optimise");
        Device device = params.get(0).device();
        long n = 0;
        for (Tensor p : params) {
            if (!p.device().equals(device)) {
                throw new IllegalArgumentException("ShardedOptimizer: the parameters are on " + device + " and " + p.device()
                        + "; move the whole model to this rank's device");
            }
            n += p.size();
        }
        this.params = List.copyOf(params);
        this.comm = comm;
        this.backend = device.backend();
        this.count = n;
        this.shard = (n + comm.size() - 1) / comm.size();
        int padded = Math.toIntExact(shard * comm.size());
        for (Tensor p : this.params) Tensors.broadcast(comm, p.data(), 0);
        this.device = device;
        this.slice = ArrayScope.outside(() -> Tensor.parameter(NDArray.zeros(device, Math.toIntExact(shard))));
        try (NDArray flatParams = NDArray.zeros(device, padded)) {
            pack(false, flatParams);
            backend.copy(flatParams.storage(), comm.rank() * shard, slice.data().storage(), 0, shard);
        }
        slice.ensureGrad();
        this.inner = makeOptimizer.apply(List.of(slice));
    }

    /** One update of the whole model from this rank's gradients: reduce-scatter, update of the slice, all-gather. */
    public void step() {
        int padded = Math.toIntExact(shard * comm.size());
        // the flat buffers live for the step only: between steps a rank keeps the model, its slice and the slice's state
        try (NDArray flatGrads = NDArray.zeros(device, padded)) {
            pack(true, flatGrads);
            Tensors.reduceScatter(comm, flatGrads, slice.grad(), Reduction.AVG);
        }
        inner.step();
        try (NDArray flatParams = NDArray.empty(device, padded)) {
            Tensors.allGather(comm, slice.data(), flatParams);
            long at = 0;
            for (Tensor p : params) {
                backend.copy(flatParams.storage(), at, p.data().storage(), 0, p.size());
                at += p.size();
            }
        }
    }

    /** Zeroes every parameter's gradient (before backward). */
    public void zeroGrad() {
        for (Tensor p : params) p.zeroGrad();
    }

    /** The parameters' values (or gradients) end to end into {@code flat}; a parameter without a gradient gives zeros. */
    private void pack(boolean grads, NDArray flat) {
        long at = 0;
        for (Tensor p : params) {
            NDArray a = grads ? p.grad() : p.data();
            if (a == null || a.isClosed()) {
                backend.fill(flat.storage(), at, p.size(), 0f);
            } else {
                try (NDArray c = a.compact()) {
                    backend.copy(c.storage(), 0, flat.storage(), at, p.size());
                }
            }
            at += p.size();
        }
    }

    /** The optimizer that updates this rank's slice (its learning rate can be changed there). */
    public Optimizer inner() {
        return inner;
    }

    /** Number of parameters of the model. */
    public long parameterCount() {
        return count;
    }

    /** Parameters this rank owns and keeps optimizer state for: ceil(count / size). */
    public long shardElements() {
        return shard;
    }

    /** The first parameter (in the flat order) of this rank's slice. */
    public long shardStart() {
        return comm.rank() * shard;
    }

    /** Zeros added after the last parameter so that every rank's slice has the same length. */
    public long padding() {
        return shard * comm.size() - count;
    }

    /** Frees the wrapped optimizer's state and this rank's slice (not the model or the communicator). */
    @Override
    public void close() {
        inner.close();
        slice.close();
    }

    @Override
    public String toString() {
        return "ShardedOptimizer[rank " + comm.rank() + " of " + comm.size() + " over " + comm.kind() + ", " + count
                + " parameters, slice [" + shardStart() + ", " + Math.min(count, shardStart() + shard) + ") of " + shard
                + (padding() > 0 ? " with " + padding() + " padding at the end" : "") + ", " + inner.getClass().getSimpleName() + "]";
    }
}
