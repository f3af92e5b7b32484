package org.mpi2nccl.nn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/**
 * A layer or a model: parameters (tensors that learn), buffers (arrays that do not, e.g. batch-norm running
 * statistics) and sub-modules, all named. {@link #state()} flattens them into one ordered list of named
 * arrays — the same order on every rank, which is what broadcasting the initial weights and all-reducing
 * gradients rely on. Parameters and buffers are allocated outside any {@link ArrayScope}: they live until
 * {@link #close()}.
 */
public abstract class Module implements AutoCloseable {

    private final Map<String, Tensor> params = new LinkedHashMap<>();
    private final Map<String, NDArray> buffers = new LinkedHashMap<>();
    private final Map<String, Module> children = new LinkedHashMap<>();
    private boolean training = true;

    /** The layer's computation. */
    public abstract Tensor forward(Tensor x);

    protected final Tensor addParameter(String name, Supplier<NDArray> init) {
        checkName(name);
        Tensor t = Tensor.parameter(ArrayScope.outside(init));
        params.put(name, t);
        return t;
    }

    protected final NDArray addBuffer(String name, Supplier<NDArray> init) {
        checkName(name);
        NDArray a = ArrayScope.outside(init);
        buffers.put(name, a);
        return a;
    }

    protected final <M extends Module> M addModule(String name, M module) {
        checkName(name);
        children.put(name, module);
        return module;
    }

    private void checkName(String name) {
        if (params.containsKey(name) || buffers.containsKey(name) || children.containsKey(name))
            throw new IllegalArgumentException(getClass().getSimpleName() + ": name '" + name + "' registered twice");
    }

    /** This module and every module inside it, depth first in registration order. */
    public final List<Module> modules() {
        List<Module> out = new ArrayList<>();
        out.add(this);
        for (Module c : children.values()) out.addAll(c.modules());
        return out;
    }

    /** Every parameter, depth first in registration order; one shared by two layers (tied) once. */
    public final List<Tensor> parameters() { return new ArrayList<>(namedParameters().values()); }

    /**
     * Parameters by dotted path ("0.weight", "features.3.bias"). A parameter shared by several layers (tied weights,
     * one layer registered twice) appears once, under its first path, as in PyTorch: an optimizer updates it once and
     * a data-parallel step averages its gradient once.
     */
    public final Map<String, Tensor> namedParameters() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        collectParameters("", out, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
        return out;
    }

    private void collectParameters(String prefix, Map<String, Tensor> out, java.util.Set<Tensor> seen) {
        params.forEach((n, t) -> {
            if (seen.add(t)) out.put(prefix + n, t);
        });
        children.forEach((n, m) -> m.collectParameters(prefix + n + ".", out, seen));
    }

    /** Buffers by dotted path. */
    public final Map<String, NDArray> namedBuffers() {
        Map<String, NDArray> out = new LinkedHashMap<>();
        collectBuffers("", out);
        return out;
    }

    private void collectBuffers(String prefix, Map<String, NDArray> out) {
        buffers.forEach((n, a) -> out.put(prefix + n, a));
        children.forEach((n, m) -> m.collectBuffers(prefix + n + ".", out));
    }

    /** Parameters' data then buffers, by dotted path: the model's whole state, the arrays themselves (not copies). */
    public final Map<String, NDArray> state() {
        Map<String, NDArray> out = new LinkedHashMap<>();
        namedParameters().forEach((n, t) -> out.put(n, t.data()));
        out.putAll(namedBuffers());
        return out;
    }

    /** Copies values into this module's state; every name must exist with the same shape, and every entry be given. */
    public final void loadState(Map<String, NDArray> values) {
        Map<String, NDArray> mine = state();
        for (String name : values.keySet())
            if (!mine.containsKey(name)) throw new IllegalArgumentException("loadState: unknown entry '" + name + "' (this model has " + mine.keySet() + ")");
        for (Map.Entry<String, NDArray> e : mine.entrySet()) {
            NDArray src = values.get(e.getKey());
            if (src == null) throw new IllegalArgumentException("loadState: entry '" + e.getKey() + "' missing");
            if (!Arrays.equals(src.shape(), e.getValue().shape()))
                throw new IllegalArgumentException("loadState: '" + e.getKey() + "' has shape " + Shapes.str(src.shape())
                        + ", the model expects " + Shapes.str(e.getValue().shape()));
            if (src.device().equals(e.getValue().device())) {
                e.getValue().assign(src);
            } else {
                try (NDArray moved = src.to(e.getValue().device())) {
                    e.getValue().assign(moved);
                }
            }
        }
    }

    /** Number of learnable scalars. */
    /** The parameters that learn: those not frozen ({@link #requiresGrad(boolean)}), for an optimizer to take. */
    public final List<Tensor> trainableParameters() {
        return parameters().stream().filter(Tensor::requiresGrad).toList();
    }

    /** Freezes ({@code false}) or unfreezes every parameter of this module and its children, as PyTorch's requires_grad_. */
    public final Module requiresGrad(boolean on) {
        for (Tensor t : parameters()) t.requiresGrad(on);
        return this;
    }

    public final long parameterCount() {
        long n = 0;
        for (Tensor t : parameters()) n += t.size();
        return n;
    }

    public final void zeroGrad() { for (Tensor t : parameters()) t.zeroGrad(); }

    /** Training mode (dropout active, batch-norm on batch statistics). Returns this. */
    public final Module train() { setTraining(true); return this; }

    /** Evaluation mode (dropout off, batch-norm on running statistics). Returns this. */
    public final Module eval() { setTraining(false); return this; }

    private void setTraining(boolean on) {
        training = on;
        for (Module m : children.values()) m.setTraining(on);
    }

    public final boolean isTraining() { return training; }

    protected final Map<String, Module> children() { return children; }

    /** Frees every parameter, gradient and buffer. */
    @Override
    public void close() {
        for (Tensor t : params.values()) t.close();
        for (NDArray a : buffers.values()) a.close();
        for (Module m : children.values()) m.close();
    }

    /** One line for leaf layers; containers print their children indented. */
    protected String describe() { return getClass().getSimpleName(); }

    @Override
    public String toString() {
        if (children.isEmpty()) return describe();
        StringBuilder b = new StringBuilder(describe()).append("(\n");
        children.forEach((n, m) -> b.append("  (").append(n).append("): ").append(m.toString().replace("\n", "\n  ")).append('\n'));
        return b.append(')').toString();
    }
}
