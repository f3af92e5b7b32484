package org.mpi2nccl.autograd;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/**
 * Reverse-mode differentiation: orders the graph below the root topologically, walks it backwards, sums the
 * gradients arriving at each tensor, and adds the result into each leaf's {@code grad}.
 */
final class Backward {
    private Backward() {}

    static void run(Tensor root, NDArray seed) {
        run(root, seed, null);
    }

    /**
     * {@code onLeafGradReady} (may be null) is told each leaf as soon as its gradient is final: in reverse
     * topological order every consumer of a tensor is processed before it, so a leaf's accumulation is its last.
     * Data-parallel training starts all-reducing a bucket of gradients there, while backward goes on.
     */
    static void run(Tensor root, NDArray seed, java.util.function.Consumer<Tensor> onLeafGradReady) {
        List<Tensor> order = topologicalOrder(root);
        Map<Tensor, NDArray> pending = new IdentityHashMap<>();
        pending.put(root, seed.compact());
        for (int t = order.size() - 1; t >= 0; t--) {
            Tensor node = order.get(t);
            NDArray g = pending.remove(node);
            if (g == null) continue;
            if (node.isLeaf()) {
                node.accumulateGrad(g);
                g.close();
                if (onLeafGradReady != null) onLeafGradReady.accept(node);
                continue;
            }
            NDArray[] inGrads = node.creator().backward(g);
            Tensor[] inputs = node.inputs();
            for (int i = 0; i < inputs.length; i++) {
                NDArray gi = inGrads[i];
                if (gi == null || !inputs[i].requiresGrad()) {
                    if (gi != null && gi != g) gi.close();
                    continue;
                }
                if (!Arrays.equals(gi.shape(), inputs[i].data().shape()))
                    throw new IllegalStateException("backward of " + node.creator().name() + " gave a gradient of shape "
                            + Shapes.str(gi.shape()) + " for input " + i + " of shape " + Shapes.str(inputs[i].data().shape()));
                if (gi == g) gi = g.compact(); // a reference of our own: g is closed below
                NDArray prev = pending.get(inputs[i]);
                if (prev == null) {
                    pending.put(inputs[i], gi);
                } else {
                    pending.put(inputs[i], prev.add(gi));
                    prev.close();
                    gi.close();
                }
            }
            g.close();
        }
        for (NDArray left : pending.values()) left.close();
    }

    /** Post-order DFS (iterative: deep graphs must not overflow the stack) over tensors that need gradients. */
    private static List<Tensor> topologicalOrder(Tensor root) {
        List<Tensor> order = new ArrayList<>();
        Map<Tensor, Boolean> visited = new IdentityHashMap<>();
        ArrayDeque<Object[]> stack = new ArrayDeque<>();
        stack.push(new Object[] {root, 0});
        visited.put(root, Boolean.TRUE);
        while (!stack.isEmpty()) {
            Object[] frame = stack.peek();
            Tensor t = (Tensor) frame[0];
            int next = (Integer) frame[1];
            Tensor[] inputs = t.isLeaf() ? new Tensor[0] : t.inputs();
            if (next < inputs.length) {
                frame[1] = next + 1;
                Tensor in = inputs[next];
                if (in.requiresGrad() && visited.put(in, Boolean.TRUE) == null) stack.push(new Object[] {in, 0});
            } else {
                stack.pop();
                order.add(t);
            }
        }
        return order;
    }

    /** A leaf's gradient buffer lives as long as the leaf, outside any step's scope. */
    static NDArray newGradBuffer(NDArray g) {
        return ArrayScope.outside(g::copy);
    }
}
