package org.mpi2nccl.cuda;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Frees, when closed, every {@link DeviceMemory} the same thread allocated while it was open (and that is
 * still open): one scope per training step frees all of the step's temporaries at once, deterministically.
 * Scopes nest; {@link #keep} moves a block out to the enclosing scope (or out of all scopes) so it survives,
 * e.g. the updated parameters or the loss value.
 * <pre>{@code
 * for (int step = 0; step < steps; step++) {
 *     try (MemoryScope scope = MemoryScope.open()) {
 *         ... forward, backward, update: every temporary is freed at the closing brace
 *     }
 * }
 * }</pre>
 */
public final class MemoryScope implements AutoCloseable {
    private static final ThreadLocal<Deque<MemoryScope>> OPEN = ThreadLocal.withInitial(ArrayDeque::new);

    private final Set<DeviceMemory> owned = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Thread thread = Thread.currentThread();
    private boolean closed;

    private MemoryScope() {}

    /** Opens a scope on the calling thread; close it on the same thread (try-with-resources). */
    public static MemoryScope open() {
        MemoryScope s = new MemoryScope();
        OPEN.get().push(s);
        return s;
    }

    /** The innermost open scope of the calling thread, or null. */
    public static MemoryScope current() {
        return OPEN.get().peek();
    }

    static void registerInCurrent(DeviceMemory m) {
        MemoryScope s = current();
        if (s != null) s.adopt(m);
    }

    private synchronized void adopt(DeviceMemory m) {
        owned.add(m);
        m.setScope(this);
    }

    synchronized void forget(DeviceMemory m) {
        owned.remove(m);
    }

    /** Moves {@code m} out of this scope into the enclosing one (or none), so closing this scope keeps it. */
    public <T extends DeviceMemory> T keep(T m) {
        synchronized (this) {
            if (!owned.remove(m)) {
                throw new IllegalArgumentException(m + " does not belong to this scope");
            }
        }
        m.setScope(null);
        MemoryScope outer = null;
        boolean seen = false;
        for (MemoryScope s : OPEN.get()) {          // innermost first
            if (seen) { outer = s; break; }
            if (s == this) seen = true;
        }
        if (outer != null) outer.adopt(m);
        return m;
    }

    /** Blocks this scope will free when closed. */
    public synchronized int size() {
        return owned.size();
    }

    /** Frees every block still owned. Must be the innermost open scope of this thread. */
    @Override
    public void close() {
        if (closed) return;
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException("a MemoryScope must be closed on the thread that opened it (" + thread.getName() + ")");
        }
        Deque<MemoryScope> stack = OPEN.get();
        if (stack.peek() != this) {
            throw new IllegalStateException("closing a MemoryScope that is not the innermost open one: close inner scopes first");
        }
        stack.pop();
        closed = true;
        List<DeviceMemory> toFree;
        synchronized (this) {
            toFree = new ArrayList<>(owned);
            owned.clear();
        }
        RuntimeException first = null;
        for (DeviceMemory m : toFree) {
            m.setScope(null);
            try {
                m.close();
            } catch (RuntimeException e) {
                if (first == null) first = e;
            }
        }
        if (first != null) throw first;
    }
}
