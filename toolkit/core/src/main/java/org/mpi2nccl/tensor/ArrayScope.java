package org.mpi2nccl.tensor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Deterministic freeing of the many temporary arrays of a training step. Every {@link NDArray} created on a
 * thread while a scope is open belongs to the innermost scope, and closing the scope closes them all except
 * the ones handed on with {@link #keep}. On the CPU this only returns memory to the garbage collector earlier;
 * on a GPU it is what keeps device memory from growing step after step:
 * <pre>{@code
 * for (Batch b : loader) {
 *     try (ArrayScope step = ArrayScope.open()) {
 *         Tensor loss = lossFn.forward(model.forward(b.x()), b.y());
 *         loss.backward();
 *         optimizer.step();      // updates parameters in place
 *     }                          // every activation and temporary gradient freed here
 * }
 * }</pre>
 * Long-lived arrays (parameters, optimizer state, gradients of parameters) are created outside any scope, or
 * through {@link #outside}. Scopes are per thread (MPJ's multicore ranks are threads) and nest.
 */
public final class ArrayScope implements AutoCloseable {

    private static final ThreadLocal<ArrayDeque<ArrayScope>> STACK = ThreadLocal.withInitial(ArrayDeque::new);
    private static final ThreadLocal<int[]> PAUSED = ThreadLocal.withInitial(() -> new int[1]);

    private final List<NDArray> arrays = new ArrayList<>();
    private final Thread owner = Thread.currentThread();
    private boolean closed;
    private boolean detached;

    private ArrayScope() {}

    /** Opens a scope on this thread; close it (try-with-resources) on the same thread. */
    public static ArrayScope open() {
        ArrayScope s = new ArrayScope();
        STACK.get().push(s);
        return s;
    }

    /** Runs {@code body} with scope tracking off: arrays it creates belong to no scope and live until closed. */
    public static <T> T outside(Supplier<T> body) {
        int[] paused = PAUSED.get();
        paused[0]++;
        try {
            return body.get();
        } finally {
            paused[0]--;
        }
    }

    /** Hands {@code array} to the enclosing scope (or to none, when this is the outermost): it survives this one. */
    public static <T extends NDArray> T keep(T array) {
        ArrayScope s = array.scope;
        if (s != null) {
            ArrayDeque<ArrayScope> stack = STACK.get();
            ArrayScope parent = null;
            boolean found = false;
            for (ArrayScope candidate : stack) {       // innermost first
                if (found) { parent = candidate; break; }
                if (candidate == s) found = true;
            }
            array.scope = parent;
            if (parent != null) parent.arrays.add(array);
        }
        return array;
    }

    /** Number of arrays this scope will close (for tests and memory reports). */
    public int tracked() {
        int n = 0;
        for (NDArray a : arrays) if (a.scope == this && !a.isClosed()) n++;
        return n;
    }

    static void register(NDArray array) {
        if (PAUSED.get()[0] > 0) return;
        ArrayScope s = STACK.get().peek();
        if (s != null) {
            array.scope = s;
            s.arrays.add(array);
        }
    }

    /**
     * Takes this scope, the innermost open one, off its thread's stack without closing it: arrays created from now
     * on go to the enclosing scope, and the ones this scope tracks live until its {@link #close()}, which may then
     * come after the enclosing scope's. For arrays that must outlive the step that made them: what a CUDA graph
     * recorded reads and writes the same arrays at every replay.
     */
    public ArrayScope detach() {
        if (closed || detached) throw new IllegalStateException("detach: the scope is already " + (closed ? "closed" : "detached"));
        if (Thread.currentThread() != owner)
            throw new IllegalStateException("an ArrayScope must be detached on the thread that opened it");
        ArrayDeque<ArrayScope> stack = STACK.get();
        if (stack.peek() != this)
            throw new IllegalStateException("only the innermost open ArrayScope can be detached (a nested scope is still open)");
        stack.pop();
        detached = true;
        return this;
    }

    @Override
    public void close() {
        if (closed) return;
        if (Thread.currentThread() != owner)
            throw new IllegalStateException("an ArrayScope must be closed on the thread that opened it");
        if (!detached) {
            ArrayDeque<ArrayScope> stack = STACK.get();
            if (stack.peek() != this)
                throw new IllegalStateException("ArrayScopes must be closed innermost first (a nested scope is still open)");
            stack.pop();
        }
        closed = true;
        for (NDArray a : arrays) if (a.scope == this) a.close();
        arrays.clear();
    }
}
