package org.mpi2nccl.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * {@code bench-gpu --only launch}: what one kernel launch costs the host, through each {@link LaunchRoute} in the
 * same run. A small model's training step is a few hundred launches of kernels that each run for microseconds, so
 * the host's microseconds per launch, not the GPU, bound the step (issue 7).
 * <p>Each case launches one kernel on one item (one block), {@link #LAUNCHES_PER_SAMPLE} times queued without
 * waiting (few enough never to fill the driver's launch queue), building its {@link KernelArgs} per launch as
 * {@link CudaBackend} does; the stream is synchronized between samples. Per route and case: the host's wall-clock
 * time per launch and the GPU's time per launch (events around the queue: when the GPU waits for the host the
 * two are close). Routes are interleaved sample by sample (a clock drift favours neither), the figure is the
 * median. The cases: fill_f32 (3 arguments), batchnorm_apply_f32 (10 arguments) and sgd_steps_f32 (a 520-byte
 * struct and 3 floats); each checks what it computed, so a route that passes arguments wrongly is reported as such.
 */
public final class LaunchCostBench {
    private LaunchCostBench() {}

    /** Launches queued per timed sample. */
    static final int LAUNCHES_PER_SAMPLE = 256;
    /** Warm-up per route and case: the JIT compiles the launch path fully only after thousands of calls. */
    static final double WARMUP_SECONDS = 0.5;
    static final int WARMUP_MIN_LAUNCHES = 5000;

    private record Case(String name, Kernel kernel, IntFunction<KernelArgs> args, Runnable check) {}

    public static List<CudaBenchmarks.Result> run(CudaBackend backend, int reps) {
        CudaContext ctx = backend.context();
        List<LaunchRoute> routes = new ArrayList<>();
        List<CudaBenchmarks.Result> out = new ArrayList<>();
        for (LaunchRoute r : LaunchRoute.values()) {
            if (ctx.canLaunchThrough(r)) routes.add(r);
            else out.add(new CudaBenchmarks.Result("launch", "route " + r + " unavailable", 0, "", 0, ctx.launchDescription()));
        }
        int samples = Math.max(reps, 30);
        try (DeviceMemory fill = ctx.allocateFloats(16);
             DeviceMemory bn = ctx.allocateFloats(6 * 16);   // x, mean, var, gamma, beta, y: 16 floats each
             DeviceMemory sgd = ctx.allocateFloats(3 * 16)) {   // p, grad, velocity
            float[] bnValues = new float[6 * 16], sgdValues = new float[3 * 16];
            bnValues[0] = 3;       // x
            bnValues[16] = 1;      // mean
            bnValues[32] = 4;      // var
            bnValues[48] = 2;      // gamma
            bnValues[64] = 0.5f;   // beta
            bn.copyFrom(bnValues);
            sgdValues[0] = 1;      // parameter
            sgdValues[16] = 1;     // gradient (velocity at 32: 0)
            sgd.copyFrom(sgdValues);
            long f = fill.address(), b = bn.address(), s = sgd.address();
            int[] lastFill = {0};
            List<Case> cases = List.of(
                    new Case("fill_f32, 3 args", Kernel.FILL, i -> {
                        lastFill[0] = i;
                        return KernelArgs.of().ptr(f).f32(i).i64(1);
                    }, () -> expect("fill_f32", fill, 0, lastFill[0], 0f)),
                    // y = gamma (x - mean) / sqrt(var + eps) + beta = 2 (3 - 1) / 2 + 0.5
                    new Case("batchnorm_apply_f32, 10 args", Kernel.BATCHNORM_APPLY, i -> KernelArgs.of()
                            .ptr(b).ptr(b + 64).ptr(b + 128).ptr(b + 192).ptr(b + 256).ptr(b + 320).i64(1).i64(1).i64(1).f32(0f),
                            () -> expect("batchnorm_apply_f32", bn, 5 * 16, 2.5f, 1e-5f)),   // rsqrtf: within 2 ulp
                    // lr 0, momentum 0.9, gradient 1: the velocity v <- 0.9 v + 1 converges to 10 (after thousands of launches)
                    new Case("sgd_steps_f32, struct of 520 bytes + 3 args", Kernel.SGD_STEPS, i -> KernelArgs.of()
                            .sgdTensors(1, new long[] {1}, new long[] {s}, new long[] {s + 64}, new long[] {s + 128})
                            .f32(0f).f32(0.9f).f32(0f),
                            () -> expect("sgd_steps_f32", sgd, 32, 10f, 1e-3f)));
            for (Case c : cases) out.addAll(time(ctx, c, routes, samples));
        }
        out.add(makeCurrentCost(ctx, samples));
        return out;
    }

    /**
     * What one of the launch path's own driver calls costs: every launch first makes the context current on the calling
     * thread (cuCtxSetCurrent through JCuda), whichever route then launches.
     */
    private static CudaBenchmarks.Result makeCurrentCost(CudaContext ctx, int samples) {
        long end = System.nanoTime() + (long) (WARMUP_SECONDS * 1e9);
        do {
            for (int i = 0; i < LAUNCHES_PER_SAMPLE; i++) ctx.makeCurrent();
        } while (System.nanoTime() < end);
        double[] us = new double[samples];
        for (int s = 0; s < samples; s++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < LAUNCHES_PER_SAMPLE; i++) ctx.makeCurrent();
            us[s] = (System.nanoTime() - t0) / 1e3 / LAUNCHES_PER_SAMPLE;
        }
        double m = CudaBenchmarks.median(us);
        return new CudaBenchmarks.Result("launch", "makeCurrent (cuCtxSetCurrent, part of every launch): host", m, "us/call", m * 1e-3,
                "median of " + samples + " samples of " + LAUNCHES_PER_SAMPLE + " calls");
    }

    private static List<CudaBenchmarks.Result> time(CudaContext ctx, Case c, List<LaunchRoute> routes, int samples) {
        double[][] host = new double[routes.size()][samples], gpu = new double[routes.size()][samples];
        int[] warm = new int[routes.size()];
        for (int r = 0; r < routes.size(); r++) {
            long end = System.nanoTime() + (long) (WARMUP_SECONDS * 1e9);
            do {
                queue(ctx, c, routes.get(r));
                ctx.synchronize();
                warm[r] += LAUNCHES_PER_SAMPLE;
            } while (System.nanoTime() < end || warm[r] < WARMUP_MIN_LAUNCHES);
            c.check.run();
        }
        try (CudaEvent start = new CudaEvent(ctx); CudaEvent stop = new CudaEvent(ctx)) {
            for (int i = 0; i < samples; i++) {
                for (int r = 0; r < routes.size(); r++) {
                    ctx.synchronize();
                    start.record();
                    long t0 = System.nanoTime();
                    queue(ctx, c, routes.get(r));
                    long t1 = System.nanoTime();
                    stop.record();
                    host[r][i] = (t1 - t0) / 1e3 / LAUNCHES_PER_SAMPLE;
                    gpu[r][i] = CudaEvent.elapsedMillis(start, stop) * 1e3 / LAUNCHES_PER_SAMPLE;
                    c.check.run();
                }
            }
        }
        List<CudaBenchmarks.Result> out = new ArrayList<>();
        String note = "median of " + samples + " samples of " + LAUNCHES_PER_SAMPLE + " launches queued without waiting, args built per launch";
        double[] hostMedian = new double[routes.size()];
        for (int r = 0; r < routes.size(); r++) {
            LaunchRoute route = routes.get(r);
            hostMedian[r] = CudaBenchmarks.median(host[r]);
            double g = CudaBenchmarks.median(gpu[r]);
            String what = c.name + " [" + route + (route == ctx.launchRoute() ? ", default" : "") + "]";
            out.add(new CudaBenchmarks.Result("launch", what + ": host", hostMedian[r], "us/launch", hostMedian[r] * 1e-3,
                    note + " (" + warm[r] + " warm-up launches; checked)"));
            out.add(new CudaBenchmarks.Result("launch", what + ": GPU", g, "us/launch", g * 1e-3,
                    "events around the queued launches: near the host's figure when the GPU waits for the host"));
        }
        int javacpp = routes.indexOf(LaunchRoute.JAVACPP), jcuda = routes.indexOf(LaunchRoute.JCUDA);
        if (javacpp >= 0 && jcuda >= 0) {
            double ratio = hostMedian[jcuda] / hostMedian[javacpp];
            out.add(new CudaBenchmarks.Result("launch", c.name + ": host cost JCUDA / JAVACPP", ratio, "x", 0,
                    String.format("%.2f us saved per launch", hostMedian[jcuda] - hostMedian[javacpp])));
        }
        return out;
    }

    private static void queue(CudaContext ctx, Case c, LaunchRoute route) {
        for (int i = 0; i < LAUNCHES_PER_SAMPLE; i++) ctx.launch(c.kernel, 1, c.args.apply(i), route);
    }

    /** Throws when the float at {@code index} of {@code memory} is not {@code want} (within {@code tolerance}). */
    private static void expect(String kernel, DeviceMemory memory, long index, float want, float tolerance) {
        float[] got = new float[1];
        memory.copyTo(index, got, 0, 1);
        if (!(Math.abs(got[0] - want) <= tolerance)) {
            throw new IllegalStateException("launch benchmark: " + kernel + " computed " + got[0] + " where " + want
                    + " was expected: its arguments did not reach the kernel as packed");
        }
    }
}
