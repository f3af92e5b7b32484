package org.mpi2nccl.comm.mpj;

import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.Deadline;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The thread an {@link MpjCommunicator}'s MPJ calls run on. MPJ's calls block without a timeout, so the caller
 * waits for them here with the communicator's timeout: a call that does not return in time leaves the worker stuck
 * inside MPJ, the communicator is marked broken and a {@link CollectiveTimeoutException} names the call.
 */
final class MpjWorker {
    private static final AtomicInteger WORKERS = new AtomicInteger();
    /**
     * The caller waits a little longer than the deadline, so that an error the worker raises at the deadline itself
     * (e.g. the metadata check naming the missing rank) arrives before the generic one.
     */
    private static final long GRACE_NANOS = 1_000_000_000L;

    private final ExecutorService pool;

    private MpjWorker(ExecutorService pool) {
        this.pool = pool;
    }

    /** A new worker: one daemon thread. */
    static MpjWorker start() {
        return new MpjWorker(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "mpj-comm-" + WORKERS.incrementAndGet());
            t.setDaemon(true);
            return t;
        }));
    }

    /** Runs {@code work} (given the call's deadline) on the worker and waits for it; late, {@code broken} is told why. */
    void run(int rank, CollectiveCall call, Duration timeout, Consumer<Deadline> work, Consumer<CommException> broken) {
        Deadline deadline = Deadline.after(timeout);
        Future<?> f = pool.submit(() -> work.accept(deadline));
        try {
            f.get(deadline.remainingNanos() + GRACE_NANOS, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            CollectiveTimeoutException t = new CollectiveTimeoutException(rank, call, timeout,
                    "MPJ to return: a peer died, hangs or skipped this call");
            broken.accept(t);
            throw t;
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException re) {
                throw re;
            }
            throw new CommException("rank " + rank + ": " + call.describe() + " failed: " + c, c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException("rank " + rank + ": interrupted while waiting for " + call.describe(), e);
        }
    }

    /** Queues {@code task} behind the calls already on the worker (e.g. freeing the worker thread's staging memory). */
    void submit(Runnable task) {
        pool.submit(task);
    }

    void shutdown() {
        pool.shutdown();
    }
}
