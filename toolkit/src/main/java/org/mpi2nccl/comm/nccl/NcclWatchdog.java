package org.mpi2nccl.comm.nccl;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.Durations;

/**
 * Bounds NCCL's blocking calls. In NCCL's blocking mode a call returns once its work is queued, and NCCL may wait
 * inside it with no limit: for room in its work queue behind a kernel that never ends, or for a peer that never
 * connects. A bounded call marks itself in progress; one daemon thread looks at every communicator's call in progress
 * each {@value #PERIOD_MS} ms and aborts the communicator of a call past its deadline, which makes NCCL return. The
 * caller then throws a {@link CollectiveTimeoutException} naming its rank and the call. A call pays two atomic
 * updates; the same pattern as PyTorch's NCCL watchdog.
 *
 * <p>When NCCL stays stuck even after the abort (its threads wait for GPU work that never ends, as with a peer's copy
 * that hangs), the caller's thread never comes back from the native call, and nothing in this process can free it:
 * {@link NcclWaits#ABORT_GRACE} after the abort the watchdog says which rank and call are stuck and ends the process,
 * as PyTorch's watchdog does, so that the launcher takes the job down at once instead of at its time limit.
 */
final class NcclWatchdog implements AutoCloseable {
    static final long PERIOD_MS = 200;
    private static final int IDLE = 0, IN_CALL = 1, ABORTING = 2, ABORTED = 3;
    private static final Set<NcclWatchdog> WATCHED = ConcurrentHashMap.newKeySet();
    private static volatile ScheduledExecutorService ticker;

    private final int rank;
    private final Runnable abort;
    private final Consumer<String> stuck;
    private final AtomicInteger state = new AtomicInteger(IDLE);
    /** Completed by the watchdog's thread once its abort has run (when the state becomes ABORTED). */
    private final CompletableFuture<Void> abortDone = new CompletableFuture<>();
    private volatile Deadline deadline;
    private volatile Supplier<String> what;
    /** When the watchdog finished aborting a call whose caller has not come back yet (0: none). */
    private volatile long abortedAt;
    private volatile boolean callerBack = true;

    /** {@code abort}: aborts the communicator (ncclCommAbort); it runs on the watchdog's thread. */
    NcclWatchdog(int rank, Runnable abort) {
        this(rank, abort, NcclWatchdog::endProcess);
    }

    /** {@code stuck}: what to do with the message when a call stays stuck after the abort (tests record it). */
    NcclWatchdog(int rank, Runnable abort, Consumer<String> stuck) {
        this.rank = rank;
        this.abort = abort;
        this.stuck = stuck;
        startTicker();
        WATCHED.add(this);
    }

    /**
     * Runs {@code nativeCall} (one blocking NCCL call, named by {@code what} only when an error is reported) within
     * {@code d}: its result, or a CollectiveTimeoutException once the communicator was aborted for running past it.
     * A call made while another thread's call on this communicator is in progress runs unwatched (NCCL wants one call
     * at a time per communicator anyway).
     */
    int call(Supplier<String> what, Deadline d, IntSupplier nativeCall) {
        int s = state.get();
        if (s >= ABORTING) {
            throw new CommException("rank " + rank + ": " + what.get() + ": the communicator was aborted after a call"
                    + " ran past its deadline; make a new one");
        }
        deadline = d;
        this.what = what;
        callerBack = false;
        if (!state.compareAndSet(IDLE, IN_CALL)) {
            callerBack = true;
            return nativeCall.getAsInt();
        }
        int r;
        try {
            r = nativeCall.getAsInt();
        } catch (RuntimeException e) {
            callerBack = true;
            if (state.compareAndSet(IN_CALL, IDLE)) throw e;
            throw timedOut(what, d);
        }
        callerBack = true;
        if (state.compareAndSet(IN_CALL, IDLE)) return r;
        throw timedOut(what, d);
    }

    /** Whether the watchdog aborted the communicator (it stays aborted). */
    boolean fired() {
        return state.get() >= ABORTING;
    }

    @Override
    public void close() {
        WATCHED.remove(this);
    }

    /** The call lost the race to the watchdog: wait for the abort to finish, then say what ran out of time. */
    private CollectiveTimeoutException timedOut(Supplier<String> what, Deadline d) {
        abortDone.join();
        return new CollectiveTimeoutException(rank, what.get(), d.timeout(),
                "NCCL to return from the call; aborted with ncclCommAbort by the watchdog");
    }

    private void check() {
        if (abortedAt != 0 && !callerBack && System.nanoTime() - abortedAt > NcclWaits.ABORT_GRACE.toNanos()) {
            abortedAt = 0;
            Supplier<String> w = what;
            stuck.accept("rank " + rank + ": " + (w == null ? "an NCCL call" : w.get()) + " did not return within "
                    + Durations.format(deadline.timeout()) + ", nor " + Durations.format(NcclWaits.ABORT_GRACE) + " after"
                    + " ncclCommAbort: NCCL waits for GPU work that never ends (a copy or kernel of a peer that hangs)."
                    + " Ending this process, as PyTorch's NCCL watchdog does: nothing inside it can free that thread.");
            return;
        }
        // state first: a call writes its deadline before it marks itself in progress, so seeing IN_CALL means seeing
        // that call's deadline, not the one before it (which may long have passed)
        if (state.get() != IN_CALL) return;
        Deadline d = deadline;
        if (d == null || d.remainingNanos() > 0) return;
        if (!state.compareAndSet(IN_CALL, ABORTING)) return;      // the call returned meanwhile
        try {
            abort.run();
        } catch (Throwable t) {
            // best effort: the timeout the caller reports matters more
        } finally {
            abortedAt = System.nanoTime();
            state.set(ABORTED);
            abortDone.complete(null);
        }
    }

    /** The default for a call stuck after the abort: say so on stderr (the launcher shows it) and halt. */
    private static void endProcess(String message) {
        System.err.println(message);
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }

    private static void startTicker() {
        if (ticker != null) return;
        synchronized (NcclWatchdog.class) {
            if (ticker != null) return;
            ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread th = new Thread(r, "nccl-watchdog");
                th.setDaemon(true);
                return th;
            });
            t.scheduleWithFixedDelay(() -> WATCHED.forEach(NcclWatchdog::check), PERIOD_MS, PERIOD_MS,
                    TimeUnit.MILLISECONDS);
            ticker = t;
        }
    }
}
