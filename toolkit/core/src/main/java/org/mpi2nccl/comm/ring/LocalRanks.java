package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.CommException;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ThreadTransport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Ranks as threads of this JVM, each with a {@link RingCommunicator} over a {@link ThreadTransport}: a whole
 * "job" inside one notebook cell or test, so that every rank's result and trace can be looked at together.
 * <pre>{@code
 * List<float[]> out = LocalRanks.run(4, b -> b.observer(new RingTrace()), comm -> {
 *     float[] x = {comm.rank()};
 *     comm.allReduce(HostBuffer.of(x), Reduction.SUM);
 *     return x;
 * });
 * }</pre>
 */
public final class LocalRanks {
    private LocalRanks() {
    }

    /**
     * Runs {@code body} once per rank, each on its own thread, and returns the results by rank. If a rank
     * throws, the first failure (by rank) is rethrown after all ranks ended; a job longer than the ranks'
     * timeout plus a minute fails instead of hanging.
     */
    public static <T> List<T> run(int ranks, Consumer<RingCommunicator.Builder> settings, Function<RingCommunicator, T> body) {
        List<RingCommunicator> comms = RingCommunicator.threads(ranks, settings);
        ExecutorService pool = Executors.newFixedThreadPool(ranks, r -> {
            Thread t = new Thread(r, "local-rank");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (RingCommunicator c : comms) {
                futures.add(pool.submit(() -> body.apply(c)));
            }
            long limitMs = comms.get(0).timeout().toMillis() + 60_000;
            List<T> out = new ArrayList<>();
            RuntimeException first = null;
            for (int r = 0; r < futures.size(); r++) {
                try {
                    out.add(futures.get(r).get(limitMs, TimeUnit.MILLISECONDS));
                } catch (ExecutionException e) {
                    out.add(null);
                    if (first == null) {
                        Throwable c = e.getCause();
                        first = c instanceof RuntimeException re ? re : new CommException("rank " + r + " failed: " + c, c);
                    }
                } catch (TimeoutException e) {
                    throw new CommException("rank " + r + " did not finish within " + limitMs / 1000 + " s");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CommException("interrupted while waiting for rank " + r, e);
                }
            }
            if (first != null) {
                throw first;
            }
            return out;
        } finally {
            pool.shutdownNow();
            comms.forEach(RingCommunicator::close);
        }
    }
}
