package org.mpi2nccl.lessons;

import org.mpi2nccl.parallel.StepListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.parallel.DataParallel;

/**
 * Lesson 03's stopwatch: the times of each training step (forward, backward, waiting for the gradients, the rest)
 * and every all-reduce call, counted and timed through {@link #comm()}, a communicator that passes each call on to
 * the real one. The stage checks time the student's code with it; the lesson's last cell times
 * {@link DataParallel} with it ({@link #listener()}). Steps before {@link #WARMUP} are left out of the medians
 * (the JIT compiles the code during the first steps).
 */
public final class Lesson03Meter {
    /** Steps left out of the medians. */
    public static final int WARMUP = 5;

    /**
     * Medians over the measured steps, in milliseconds.
     *
     * @param calls        all-reduce calls per step
     * @param compute      forward and backward
     * @param allReduce    time inside all-reduce calls
     * @param hidden       the part of the all-reduce time that ran while backward was still computing
     * @param waited       from the end of backward until the gradients were averaged
     * @param step         the whole step (forward to optimizer update)
     * @param overlapCalls all-reduce calls, over all steps, that started before their step's backward ended
     * @param stepLow      the step's 25th percentile: with {@code stepHigh}, the middle half of the steps, the spread a
     *                     comparison of two stages must clear before it says one was faster
     * @param stepHigh     the step's 75th percentile
     */
    public record Summary(double calls, double compute, double allReduce, double hidden, double waited, double step,
                          int overlapCalls, double stepLow, double stepHigh) {}

    private static final int BWD_START = 1, BWD_END = 2, SYNCED = 3, END = 4;

    private final Communicator inner;
    private final Communicator counting;
    private final List<long[]> steps = new ArrayList<>();        // per step: start, backward start/end, synced, end
    private final List<long[]> calls = new ArrayList<>();        // per call: step, start, end
    private volatile int step = -1;
    private volatile boolean inBackward;
    private int launchedInBackward;                               // tasks handed to a watched executor during backward

    public Lesson03Meter(Communicator comm) {
        this.inner = comm;
        this.counting = new Counting();
    }

    /** The communicator to hand to the code being timed: the real one, with every all-reduce counted and timed. */
    public Communicator comm() {
        return counting;
    }

    public void stepStarts() {
        long[] t = new long[5];
        t[0] = System.nanoTime();
        synchronized (this) {
            steps.add(t);
            step = steps.size() - 1;
        }
    }

    public void backwardStarts() {
        mark(BWD_START);
        inBackward = true;
    }

    public void backwardEnds() {
        inBackward = false;
        mark(BWD_END);
    }

    public void synced() { mark(SYNCED); }

    public void stepEnds() { mark(END); }

    private synchronized void mark(int what) {
        steps.get(step)[what] = System.nanoTime();
    }

    /** The same marks, taken from {@link DataParallel}'s step. */
    public StepListener listener() {
        return new StepListener() {
            @Override public void stepStarted() { stepStarts(); }
            @Override public void forwardDone() { backwardStarts(); }
            @Override public void backwardDone() { backwardEnds(); }
            @Override public void gradientsAveraged() { synced(); }
            @Override public void optimizerDone() { stepEnds(); }
        };
    }

    /**
     * {@code threads}, counting the tasks handed to it while backward runs: an all-reduce launched from a backward
     * hook is counted there, whenever the thread gets to run it.
     */
    public ExecutorService watch(ExecutorService threads) {
        return new AbstractExecutorService() {
            @Override public void execute(Runnable task) {
                if (inBackward) {
                    synchronized (Lesson03Meter.this) {
                        launchedInBackward++;
                    }
                }
                threads.execute(task);
            }

            @Override public void shutdown() { threads.shutdown(); }
            @Override public List<Runnable> shutdownNow() { return threads.shutdownNow(); }
            @Override public boolean isShutdown() { return threads.isShutdown(); }
            @Override public boolean isTerminated() { return threads.isTerminated(); }
            @Override public boolean awaitTermination(long t, TimeUnit u) throws InterruptedException {
                return threads.awaitTermination(t, u);
            }
        };
    }

    /** Tasks handed to a {@link #watch}ed executor during backward, over all steps. */
    public synchronized int launchedInBackward() {
        return launchedInBackward;
    }

    /** Steps timed so far. */
    public synchronized int steps() {
        return steps.size();
    }

    public synchronized Summary summary() {
        int from = steps.size() > WARMUP ? WARMUP : 0;
        int n = steps.size() - from;
        double[] nCalls = new double[n], compute = new double[n], busy = new double[n], hidden = new double[n],
                wait = new double[n], total = new double[n];
        int overlapping = 0;
        for (long[] c : calls) {
            int s = (int) c[0];
            if (s < 0) continue;                       // before the first step (e.g. DataParallel's broadcast)
            long[] t = steps.get(s);
            if (c[1] < t[BWD_END]) overlapping++;
            if (s < from) continue;
            int i = s - from;
            nCalls[i]++;
            busy[i] += c[2] - c[1];
            hidden[i] += Math.max(0, Math.min(c[2], t[BWD_END]) - Math.max(c[1], t[BWD_START]));
        }
        for (int i = 0; i < n; i++) {
            long[] t = steps.get(from + i);
            compute[i] = t[BWD_END] - t[0];
            wait[i] = t[SYNCED] - t[BWD_END];
            total[i] = t[END] - t[0];
        }
        return new Summary(median(nCalls, 1), median(compute, 1e-6), median(busy, 1e-6), median(hidden, 1e-6),
                median(wait, 1e-6), median(total, 1e-6), overlapping, percentile(total, 25), percentile(total, 75));
    }

    private static double percentile(double[] nanos, double p) {
        return 1e-6 * new org.apache.commons.math3.stat.descriptive.rank.Percentile(p).evaluate(nanos);   // NaN for none
    }

    private static double median(double[] v, double scale) {
        return scale * new org.apache.commons.math3.stat.descriptive.rank.Median().evaluate(v);   // NaN for none
    }

    /** Every all-reduce counted and timed; every other call passed on as it is. */
    private final class Counting implements Communicator {
        @Override public void allReduce(CommBuffer send, CommBuffer recv, Reduction op) {
            int s = step;
            long t0 = System.nanoTime();
            inner.allReduce(send, recv, op);
            long t1 = System.nanoTime();
            synchronized (Lesson03Meter.this) {
                calls.add(new long[] {s, t0, t1});
            }
        }

        @Override public int rank() { return inner.rank(); }
        @Override public int size() { return inner.size(); }
        @Override public String kind() { return inner.kind(); }
        @Override public Duration timeout() { return inner.timeout(); }
        @Override public boolean isBroken() { return inner.isBroken(); }
        @Override public void broadcast(CommBuffer send, CommBuffer recv, int root) { inner.broadcast(send, recv, root); }
        @Override public void reduce(CommBuffer send, CommBuffer recv, Reduction op, int root) { inner.reduce(send, recv, op, root); }
        @Override public void allGather(CommBuffer send, CommBuffer recv) { inner.allGather(send, recv); }
        @Override public void reduceScatter(CommBuffer send, CommBuffer recv, Reduction op) { inner.reduceScatter(send, recv, op); }
        @Override public void send(CommBuffer buffer, int peer) { inner.send(buffer, peer); }
        @Override public void recv(CommBuffer buffer, int peer) { inner.recv(buffer, peer); }
        @Override public void barrier() { inner.barrier(); }
        @Override public Communicator split(int color, int key) { return inner.split(color, key); }
        @Override public void synchronize() { inner.synchronize(); }
        @Override public void close() { }              // the real communicator belongs to the caller

        @Override public String toString() { return inner.toString(); }
    }
}
