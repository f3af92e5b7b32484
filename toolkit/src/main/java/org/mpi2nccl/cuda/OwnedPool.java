package org.mpi2nccl.cuda;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Native things lent to owners and all taken back when their owner is done, kept for the next owner instead of
 * being freed. {@link LabelChecks} lends the label-check slots of a CUDA-graph recording (a device flag and a pinned
 * word each, which every replay writes) to the {@link GraphRecording} being recorded; when that recording closes,
 * its slots come back here. So the slots that exist at any time are those of the recordings open at once (a
 * data-parallel run records again at every new batch shape), not one set per recording ever made. Generic over what
 * is lent so that its bookkeeping is tested without a GPU.
 */
final class OwnedPool<T> {
    private final Supplier<T> make;
    private final Consumer<T> free;
    /** What each owner holds, in the order it was lent (identity: owners are recordings). */
    private final Map<Object, List<T>> lent = new IdentityHashMap<>();
    /** Every lent thing, the one lent first first: the order in which they are checked. */
    private final List<T> inUse = new ArrayList<>();
    private final ArrayDeque<T> idle = new ArrayDeque<>();

    OwnedPool(Supplier<T> make, Consumer<T> free) {
        this.make = make;
        this.free = free;
    }

    /** One thing for {@code owner}: an idle one if there is one, else a new one. */
    T take(Object owner) {
        T t = idle.isEmpty() ? make.get() : idle.pop();
        lent.computeIfAbsent(owner, o -> new ArrayList<>()).add(t);
        inUse.add(t);
        return t;
    }

    /**
     * Takes back all that {@code owner} holds (nothing if it holds nothing, or if {@link #freeAll} freed it already);
     * returned for a last look before the next owner gets them.
     */
    List<T> giveBack(Object owner) {
        List<T> back = lent.remove(owner);
        if (back == null) return List.of();
        inUse.removeAll(back);
        idle.addAll(back);
        return back;
    }

    /** What is lent now, the one lent first first. */
    List<T> inUse() {
        return inUse;
    }

    int idleCount() {
        return idle.size();
    }

    /** Frees everything, lent or idle, once; the pool starts empty again. */
    void freeAll() {
        List<T> all = new ArrayList<>(inUse);
        all.addAll(idle);
        lent.clear();
        inUse.clear();
        idle.clear();
        all.forEach(free);
    }
}
