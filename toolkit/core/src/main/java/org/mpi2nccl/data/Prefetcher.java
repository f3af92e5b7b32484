package org.mpi2nccl.data;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The background threads that gather batches ahead for {@link DataLoader#withPrefetch}: daemon threads (they
 * never keep a JVM alive) that end after a minute without work, shared by every loader of the JVM.
 */
final class Prefetcher {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "data-loader-prefetch-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    private Prefetcher() {}

    static Pending submit(Supplier<DataLoader.HostBatch> gather) {
        return new Pending(POOL.submit(gather::get));
    }

    /** A batch being gathered. */
    record Pending(Future<DataLoader.HostBatch> future) {
        DataLoader.HostBatch await(int batch, Duration timeout) {
            try {
                return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (c instanceof RuntimeException r) throw r;
                if (c instanceof Error err) throw err;
                throw new IllegalStateException("DataLoader: gathering batch " + batch + " failed: " + c, c);
            } catch (TimeoutException e) {
                future.cancel(true);
                throw new IllegalStateException("DataLoader: batch " + batch + " was not gathered within "
                        + timeout.toSeconds() + " s on the prefetch thread (a data set that blocks on I/O?)");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("DataLoader: interrupted while waiting for batch " + batch, e);
            }
        }
    }
}
