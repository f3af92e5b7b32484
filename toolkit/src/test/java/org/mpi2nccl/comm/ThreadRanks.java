package org.mpi2nccl.comm;

import org.mpi2nccl.comm.ring.RingCommunicator;

import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/** Runs one body per rank on threads, each with its own ring communicator over a ThreadTransport (tests of any package). */
public final class ThreadRanks {
    private ThreadRanks() {
    }

    public interface Body<T> {
        T run(RingCommunicator comm) throws Exception;
    }

    /** Runs {@code body} on every rank and returns the results (or Throwables) by rank; fails after 60 s. */
    public static <T> List<Object> runAll(int size, Consumer<RingCommunicator.Builder> settings, Body<T> body) {
        return runAll(size, settings, Duration.ofSeconds(60), body);
    }

    /** {@link #runAll(int, Consumer, Body)} with a time limit for each rank's body. */
    public static <T> List<Object> runAll(int size, Consumer<RingCommunicator.Builder> settings, Duration limit, Body<T> body) {
        List<RingCommunicator> comms = RingCommunicator.threads(size, settings);
        ExecutorService pool = Executors.newFixedThreadPool(size);
        try {
            List<Future<T>> fs = new ArrayList<>();
            for (RingCommunicator c : comms) {
                fs.add(pool.submit(() -> body.run(c)));
            }
            List<Object> out = new ArrayList<>();
            for (Future<T> f : fs) {
                try {
                    out.add(f.get(limit.toMillis(), TimeUnit.MILLISECONDS));
                } catch (ExecutionException e) {
                    out.add(e.getCause());
                } catch (TimeoutException e) {
                    throw new AssertionError("a rank hung for " + limit.toSeconds() + " s", e);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
            comms.forEach(RingCommunicator::close);
        }
    }

    /** Like runAll, but any rank's exception fails the test. */
    public static <T> List<T> run(int size, Consumer<RingCommunicator.Builder> settings, Body<T> body) {
        return run(size, settings, Duration.ofSeconds(60), body);
    }

    /** {@link #run(int, Consumer, Body)} with a time limit for each rank's body. */
    @SuppressWarnings("unchecked")
    public static <T> List<T> run(int size, Consumer<RingCommunicator.Builder> settings, Duration limit, Body<T> body) {
        List<Object> all = runAll(size, settings, limit, body);
        for (int r = 0; r < all.size(); r++) {
            if (all.get(r) instanceof Throwable t) {
                throw new AssertionError("rank " + r + " failed: " + t, t);
            }
        }
        return (List<T>) (List<?>) all;
    }
}
