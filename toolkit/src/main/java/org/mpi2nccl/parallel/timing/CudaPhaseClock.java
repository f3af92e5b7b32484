package org.mpi2nccl.parallel.timing;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaEvent;

/**
 * {@link PhaseClock} on CUDA events recorded on the backend's stream: the time the GPU spent between phase
 * boundaries, whatever the host was doing. Each step uses one set of events; up to {@link #DEPTH} steps may
 * be in flight before the oldest is read (which waits for the GPU to pass it), so the host can run ahead as
 * it does without timing.
 *
 * <p>Reading a step is where a training rank waits for its GPU, so the wait is bounded: a step whose collective waits
 * for a rank that stopped or skipped it (inside a replayed CUDA graph nothing else would notice) fails the rank after
 * the communicator's timeout, naming it, and the launcher takes the job down.
 */
final class CudaPhaseClock implements PhaseClock {
    static final int DEPTH = org.mpi2nccl.cuda.StepsAhead.STEPS;
    private static final int MARKS = Phase.values().length + 1;

    /** How long a wait for the GPU yields the core between polls before it sleeps (CUDA's own wait spins or yields). */
    private static final long YIELD_NANOS = 100_000_000L;

    private final CudaBackend backend;
    private final Duration timeout;
    private final String who;
    private final Consumer<String> onStuck;
    private final ArrayDeque<CudaEvent[]> free = new ArrayDeque<>();
    private final ArrayDeque<CudaEvent[]> inFlight = new ArrayDeque<>();
    private final long[] resolved = new long[Phase.values().length];
    private CudaEvent[] current;

    /**
     * {@code who} names the rank in the error of a step the GPU did not finish within {@code timeout}; {@code onStuck}
     * is told the error first (the GPU is then stuck: whoever cleans up must not wait for it).
     */
    CudaPhaseClock(CudaBackend backend, Duration timeout, String who, Consumer<String> onStuck) {
        this.backend = backend;
        this.timeout = timeout;
        this.who = who;
        this.onStuck = onStuck;
    }

    @Override
    public void stepStart() {
        if (current != null) free.push(current);      // a step abandoned half-way (an exception): reuse its events
        if (free.isEmpty() && inFlight.size() >= DEPTH) resolveOldest();
        current = free.isEmpty() ? newSet() : free.pop();
        current[0].record();
    }

    @Override
    public void phaseEnd(Phase phase) {
        current[phase.ordinal() + 1].record();
        if (phase.ordinal() == MARKS - 2) {
            inFlight.add(current);
            current = null;
        }
    }

    @Override
    public void drainInto(long[] nanos) {
        while (!inFlight.isEmpty()) resolveOldest();
        for (int i = 0; i < resolved.length; i++) {
            nanos[i] += resolved[i];
            resolved[i] = 0;
        }
    }

    private void resolveOldest() {
        CudaEvent[] set = inFlight.poll();
        try {
            awaitStep(set[MARKS - 1]::isDone, timeout, who);
        } catch (IllegalStateException e) {
            onStuck.accept(e.getMessage());
            throw e;
        }
        for (int i = 0; i + 1 < MARKS; i++) {
            resolved[i] += Math.round(CudaEvent.elapsedMillis(set[i], set[i + 1]) * 1e6);
        }
        free.push(set);
    }

    /** Waits until {@code done}, at most {@code timeout}: then an error that says what the rank waited for and why. */
    static void awaitStep(BooleanSupplier done, Duration timeout, String who) {
        if (!Deadline.after(timeout).await(done, YIELD_NANOS)) {
            throw new IllegalStateException(who + ": the GPU has not finished a training step queued " + timeout.toSeconds()
                    + " s ago: a collective in it is waiting for a rank that stopped or skipped a step (NCCL_DEBUG=INFO shows"
                    + " which call); this rank stops");
        }
    }

    private CudaEvent[] newSet() {
        CudaEvent[] set = new CudaEvent[MARKS];
        for (int i = 0; i < MARKS; i++) set[i] = new CudaEvent(backend.context());
        return set;
    }

    @Override
    public void close() {
        for (CudaEvent[] s : free) for (CudaEvent e : s) e.close();
        for (CudaEvent[] s : inFlight) for (CudaEvent e : s) e.close();
        if (current != null) for (CudaEvent e : current) e.close();
        free.clear();
        inFlight.clear();
        current = null;
    }
}
