package org.mpi2nccl.bench.gpu;

import java.util.Arrays;
import java.util.List;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.mpi2nccl.cuda.CudaContext;
import org.mpi2nccl.cuda.CudaEvent;

/**
 * How the GPU benchmarks time a call: GPU time between two CUDA events recorded on the context's stream (the
 * host's launch time stays out of a kernel's figure), wall-clock time for calls that block, warm-up first, the
 * median of many samples as the figure. {@link #interleaved} times several calls in rounds, so a drift of the
 * GPU's clocks or temperature during a run, or the order of the calls, favours none of them.
 */
final class GpuTiming {
    private GpuTiming() {}

    /**
     * Untimed calls of each case before {@link #interleaved} times it. Enough for the JIT to have compiled the
     * launch path of each case (as it has in a training loop), so the figure is the kernel's and not the
     * interpreter's: the GPU event that starts the timing is recorded before the host has queued the kernel.
     */
    static final int WARMUP_CALLS = 200;
    /** Calls queued between two events for the back-to-back sample of each round. */
    static final int BACK_TO_BACK = 10;
    /** Rounds of {@link #interleaved} (every case once per round, in list order). */
    static final int ROUNDS = 5;

    /** The median of the samples (the mean of the middle two for an even count). */
    static double median(double[] samples) {
        return new Median().evaluate(samples);
    }

    /** Runs {@code body} until {@code seconds} have passed on the GPU (at least 10 calls); returns the calls made. */
    static int warmUp(CudaContext ctx, Runnable body, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        int calls = 0;
        do {
            for (int i = 0; i < 10; i++) body.run();
            calls += 10;
            ctx.synchronize();
        } while (System.nanoTime() < end);
        return calls;
    }

    /**
     * Runs a blocking {@code body} (one that waits for the GPU, as a synchronized training step) until {@code seconds}
     * have passed and at least 10 times; returns the calls made.
     */
    static int warmUpBlocking(Runnable body, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        int calls = 0;
        do {
            body.run();
            calls++;
        } while (System.nanoTime() < end || calls < 10);
        return calls;
    }

    /** Milliseconds per call of {@code reps} samples, each {@code batch} calls queued between two events. */
    static double[] timeGpuBatches(CudaContext ctx, int reps, int batch, Runnable body) {
        ctx.synchronize();
        double[] ms = new double[reps];
        try (CudaEvent start = new CudaEvent(ctx); CudaEvent end = new CudaEvent(ctx)) {
            for (int i = 0; i < reps; i++) {
                start.record();
                for (int k = 0; k < batch; k++) body.run();
                end.record();
                ms[i] = CudaEvent.elapsedMillis(start, end) / batch;
            }
        }
        return ms;
    }

    /** Median GPU milliseconds of {@code body} over {@code reps} event-timed runs, after {@code warmup} untimed ones. */
    static double timeGpu(CudaContext ctx, int reps, int warmup, Runnable body) {
        return median(timeGpuSamples(ctx, reps, warmup, body));
    }

    /** The GPU milliseconds of each of {@code reps} event-timed runs of {@code body}, after {@code warmup} untimed ones. */
    static double[] timeGpuSamples(CudaContext ctx, int reps, int warmup, Runnable body) {
        for (int i = 0; i < warmup; i++) body.run();
        ctx.synchronize();
        double[] ms = new double[reps];
        try (CudaEvent start = new CudaEvent(ctx); CudaEvent end = new CudaEvent(ctx)) {
            for (int i = 0; i < reps; i++) {
                start.record();
                body.run();
                end.record();
                ms[i] = CudaEvent.elapsedMillis(start, end);
            }
        }
        return ms;
    }

    /** Median wall-clock milliseconds of a blocking {@code body}, after one warm-up run. */
    static double timeHost(int reps, Runnable body) {
        body.run();
        double[] ms = new double[reps];
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            body.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        return median(ms);
    }

    /** A call timed by {@link #interleaved}: {@code traffic} bytes read + written per call. */
    static final class Timed {
        final String name;
        final long traffic;
        final Runnable call;
        double[] single = new double[0], queued = new double[0];

        Timed(String name, long traffic, Runnable call) {
            this.name = name;
            this.traffic = traffic;
            this.call = call;
        }

        double singleMs() {
            return median(single);
        }

        double queuedMs() {
            return median(queued);
        }

        double gbs(double ms) {
            return traffic / (ms * 1e-3) / 1e9;
        }
    }

    /**
     * Warms every case up ({@value #WARMUP_CALLS} untimed calls each), then times them in {@value #ROUNDS} rounds,
     * each case once per round in list order: {@code max(3, reps / ROUNDS)} event-timed single calls and one sample
     * of {@value #BACK_TO_BACK} calls queued between two events.
     */
    static void interleaved(CudaContext ctx, List<Timed> cases, int reps) {
        for (Timed k : cases) {
            for (int i = 0; i < WARMUP_CALLS; i++) k.call.run();
        }
        ctx.synchronize();
        int perRound = Math.max(3, reps / ROUNDS);
        for (int round = 0; round < ROUNDS; round++) {
            for (Timed k : cases) {
                k.single = concat(k.single, timeGpuSamples(ctx, perRound, 2, k.call));
                k.queued = concat(k.queued, timeGpuBatches(ctx, 1, BACK_TO_BACK, k.call));
            }
        }
    }

    private static double[] concat(double[] a, double[] b) {
        double[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
