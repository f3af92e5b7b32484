package org.mpi2nccl.parallel;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.mpi2nccl.autograd.GradMode;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Fully sharded data parallelism (ZeRO stage 3, PyTorch's FSDP; lesson 09). The model is a chain of <em>units</em>
 * (layers, or small groups of them). Between steps each rank keeps, of every unit, only its slice of the unit's flat
 * parameters (padded to {@code size x shard}), that slice's gradient and the optimizer state of that slice. Nothing
 * else of the model lives on a rank between steps:
 * <ol>
 *   <li>forward, unit by unit: all-gather the unit's parameters into a layer made by the unit's factory, compute its
 *       output without recording a graph, free the layer; the unit's input is kept;</li>
 *   <li>backward, unit by unit in reverse: all-gather again, recompute the unit's forward from its kept input with the
 *       graph on, backward through it, reduce-scatter (average) the layer's gradients into this rank's slice, free
 *       the layer;</li>
 *   <li>{@link #step()}: the wrapped optimizer updates this rank's slices only.</li>
 * </ol>
 * Backward recomputes each unit rather than keeping forward's graph, because the toolkit's graph holds the very arrays
 * it multiplied by: kept, it would keep every unit's full parameters alive until backward, which is what sharding
 * them is for. So at most one unit's full parameters live at a time, at the price of a second forward per unit (as
 * with activation checkpointing, which FSDP is usually run with).
 *
 * <p>A unit is given as a factory of its layer: the constructor calls it once for the initial weights (rank 0's are
 * broadcast), and every gather calls it again for a layer whose values the gathered ones then overwrite. A unit must
 * have parameters and no buffers (batch-norm statistics are not sharded here). The result equals plain data
 * parallelism up to float rounding (FullyShardedDataParallelTest, 1 to 4 ranks).
 * <pre>{@code
 * FullyShardedDataParallel fsdp = new FullyShardedDataParallel(units, comm, shards -> new SGD(shards, 0.1f));
 * Tensor y = fsdp.forward(Tensor.constant(batch.x()));
 * lossFn.forward(y, batch.y()).backward();   // stops at y, the sharded model's output
 * fsdp.backward();                           // through the units: gather, recompute, reduce-scatter, free
 * fsdp.step();                               // the optimizer on this rank's slices
 * }</pre>
 */
public final class FullyShardedDataParallel implements AutoCloseable {
    private final List<Supplier<Module>> units;
    private final Communicator comm;
    private final Device device;
    private final Backend backend;
    private final long[] counts;            // parameters of each unit
    private final long[] shardLengths;      // ceil(count / size) of each unit
    private final List<Tensor> shards = new ArrayList<>();
    private final Optimizer inner;
    private final Tensor[] inputs;          // each unit's input, kept by forward for backward's recompute
    private final List<Module> gathered = new ArrayList<>();
    private long peakGatheredBytes;
    private Tensor output;

    /**
     * Shards the units over {@code comm}'s ranks and wraps the optimizer {@code makeOptimizer} makes over this rank's
     * slices. Collective: every rank calls it with the same units.
     */
    public FullyShardedDataParallel(List<Supplier<Module>> units, Communicator comm,
                                    Function<List<Tensor>, Optimizer> makeOptimizer) {
        if (units.isEmpty()) throw new IllegalArgumentException("FullyShardedDataParallel: no units");
        this.units = List.copyOf(units);
        this.comm = comm;
        this.counts = new long[units.size()];
        this.shardLengths = new long[units.size()];
        this.inputs = new Tensor[units.size()];
        Device first = null;
        for (int u = 0; u < units.size(); u++) {
            try (Module layer = units.get(u).get()) {
                check(u, layer);
                Device d = layer.parameters().get(0).device();
                if (first == null) first = d;
                if (!d.equals(first)) {
                    throw new IllegalArgumentException("FullyShardedDataParallel: unit " + u + " is on " + d + ", unit 0 on"
                            + first + "; build every unit on this rank's device");
                }
                for (Tensor p : layer.parameters()) Tensors.broadcast(comm, p.data(), 0);
                counts[u] = layer.parameterCount();
                shardLengths[u] = (counts[u] + comm.size() - 1) / comm.size();
                int length = Math.toIntExact(shardLengths[u]);
                Tensor shard = ArrayScope.outside(() -> Tensor.parameter(NDArray.zeros(d, length)));
                try (NDArray flat = pack(layer, false, u, d)) {
                    d.backend().copy(flat.storage(), comm.rank() * shardLengths[u], shard.data().storage(), 0, shardLengths[u]);
                }
                shard.ensureGrad();
                shards.add(shard);
            }
        }
        this.device = first;
        this.backend = first.backend();
        this.inner = makeOptimizer.apply(List.copyOf(shards));
    }

    private static void check(int u, Module layer) {
        if (layer.parameters().isEmpty()) {
            throw new IllegalArgumentException("FullyShardedDataParallel: unit " + u + " has no parameters; put a layer"
                    + " without any (ReLU, Flatten) in the unit of a layer that has some");
        }
        if (!layer.namedBuffers().isEmpty()) {
            throw new IllegalArgumentException("FullyShardedDataParallel: unit " + u + " has buffers "
                    + layer.namedBuffers().keySet() + "; only parameters are sharded here");
        }
    }

    /** The output of every unit in turn, each unit gathered and freed; a leaf whose gradient {@link #backward} reads. */
    public Tensor forward(Tensor x) {
        Tensor h = x;
        for (int u = 0; u < units.size(); u++) {
            inputs[u] = h;
            try (Module layer = gather(u); GradMode.Off off = GradMode.off()) {
                h = layer.forward(h);
            }
        }
        output = Tensor.leaf(h.data(), true);
        return output;
    }

    /**
     * Backward from the gradient the loss left in {@link #forward}'s output, through the units in reverse: each is
     * gathered again, recomputed from its kept input, and its gradient reduce-scattered into this rank's slice
     * (replacing what the slice held). Collective.
     */
    public void backward() {
        if (output == null || output.grad() == null) {
            throw new IllegalStateException("FullyShardedDataParallel.backward: call forward, then backward on the loss of its"
                    + " output, first");
        }
        NDArray g = output.grad();
        for (int u = units.size() - 1; u >= 0; u--) {
            try (Module layer = gather(u)) {
                Tensor x = Tensor.leaf(inputs[u].data(), u > 0);     // the model's input needs no gradient
                layer.forward(x).backward(g);
                try (NDArray flat = pack(layer, true, u, device)) {
                    Tensors.reduceScatter(comm, flat, shards.get(u).grad(), Reduction.AVG);
                }
                g = u > 0 ? x.grad() : null;
            }
        }
        output = null;
        java.util.Arrays.fill(inputs, null);
    }

    /** The wrapped optimizer's update of this rank's slices. */
    public void step() {
        inner.step();
    }

    /** A layer of unit {@code u} holding the gathered parameters (the padding dropped); the caller closes it. */
    private Module gather(int u) {
        Module layer = units.get(u).get();
        try (NDArray flat = NDArray.empty(device, Math.toIntExact(shardLengths[u] * comm.size()))) {
            Tensors.allGather(comm, shards.get(u).data(), flat);
            long at = 0;
            for (Tensor p : layer.parameters()) {
                backend.copy(flat.storage(), at, p.data().storage(), 0, p.size());
                at += p.size();
            }
        }
        gathered.removeIf(m -> m.parameters().get(0).data().isClosed());
        gathered.add(layer);
        peakGatheredBytes = Math.max(peakGatheredBytes, liveGatheredBytes());
        return layer;
    }

    /** The layer's values (or gradients) end to end, then zeros up to size x shard; a missing gradient gives zeros. */
    private NDArray pack(Module layer, boolean grads, int u, Device d) {
        NDArray flat = NDArray.zeros(d, Math.toIntExact(shardLengths[u] * comm.size()));
        long at = 0;
        for (Tensor p : layer.parameters()) {
            NDArray a = grads ? p.grad() : p.data();
            if (a != null && !a.isClosed()) {
                try (NDArray c = a.compact()) {
                    d.backend().copy(c.storage(), 0, flat.storage(), at, p.size());
                }
            }
            at += p.size();
        }
        return flat;
    }

    /** Bytes of gathered (full) unit parameters alive now, counted from the layers not yet freed. */
    public long liveGatheredBytes() {
        long bytes = 0;
        for (Module m : gathered) {
            for (Tensor p : m.parameters()) if (!p.data().isClosed()) bytes += 4 * p.size();
        }
        return bytes;
    }

    /** The most gathered-parameter bytes alive at once so far, measured at each gather. */
    public long peakGatheredBytes() {
        return peakGatheredBytes;
    }

    /** The whole model's parameters end to end, gathered unit by unit onto the host (collective; for checks). */
    public float[] fullParameters() {
        float[] out = new float[Math.toIntExact(parameterCount())];
        int at = 0;
        for (int u = 0; u < units.size(); u++) {
            try (NDArray flat = NDArray.empty(device, Math.toIntExact(shardLengths[u] * comm.size()))) {
                Tensors.allGather(comm, shards.get(u).data(), flat);
                System.arraycopy(flat.toArray(), 0, out, at, (int) counts[u]);
            }
            at += (int) counts[u];
        }
        return out;
    }

    /** This rank's slices, one per unit: what the optimizer updates. */
    public List<Tensor> shards() {
        return List.copyOf(shards);
    }

    /** The wrapped optimizer. */
    public Optimizer inner() {
        return inner;
    }

    /** Number of parameters of the whole model. */
    public long parameterCount() {
        long n = 0;
        for (long c : counts) n += c;
        return n;
    }

    /** Parameters this rank keeps: the sum over the units of ceil(count / size). */
    public long shardElements() {
        long n = 0;
        for (long s : shardLengths) n += s;
        return n;
    }

    /** Frees the slices, their gradients and the optimizer's state (not the communicator). */
    @Override
    public void close() {
        inner.close();
        for (Tensor s : shards) s.close();
        for (Module m : gathered) m.close();
        gathered.clear();
    }

    @Override
    public String toString() {
        return "FullyShardedDataParallel[rank " + comm.rank() + " of " + comm.size() + " over " + comm.kind() + ", "
                + units.size() + " units, " + parameterCount() + " parameters, " + shardElements() + " kept on this rank, "
                + inner.getClass().getSimpleName() + "]";
    }
}
