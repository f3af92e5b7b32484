package org.mpi2nccl.bench.gpu;

import java.util.List;
import java.util.function.IntFunction;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaContext;
import org.mpi2nccl.cuda.CudaEvent;
import org.mpi2nccl.cuda.DeviceMemory;
import org.mpi2nccl.cuda.Kernel;
import org.mpi2nccl.cuda.KernelArgs;

/**
 * {@code bench-gpu --only launch}: what one kernel launch costs the host. A small model's training step is a few
 * hundred launches of kernels that each run for microseconds, so the host's microseconds per launch, not the GPU,
 * bound the step (lesson 05).
 * <p>Each case launches one kernel on one item (one block), {@link #LAUNCHES_PER_SAMPLE} times queued without
 * waiting (few enough never to fill the driver's launch queue), building its {@link KernelArgs} per launch as
 * {@link CudaBackend} does; the stream is synchronized between samples. Per case: the host's wall-clock time per
 * launch and the GPU's time per launch (events around the queue: when the GPU waits for the host the two are
 * close); the figure is the median. The cases: fill_f32 (3 arguments), batchnorm_apply_f32 (10 arguments) and
 * sgd_steps_f32 (a 520-byte struct and 3 floats); each checks what it computed, so arguments that do not reach the
 * kernel as packed are reported as such.
 */
public final class LaunchCostBench {
    private LaunchCostBench() {}

    /** Launches queued per timed sample. */
    static final int LAUNCHES_PER_SAMPLE = 256;
    /** Warm-up per case: the JIT compiles the launch path fully only after thousands of calls. */
    static final double WARMUP_SECONDS = 0.5;
    static final int WARMUP_MIN_LAUNCHES = 5000;

    private record Case(String name, Kernel kernel, IntFunction<KernelArgs> args, Runnable check) {}

    public static List<GpuFigure> run(CudaBackend backend, int reps) {
        CudaContext ctx = backend.context();
        List<GpuFigure> out = new java.util.ArrayList<>();
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
            for (Case c : cases) out.addAll(time(ctx, c, samples));
        }
        out.add(makeCurrentCost(ctx, samples));
        return out;
    }

    /**
     * What one of the launch path's own driver calls costs: every launch first makes the context current on the calling
     * thread (cuCtxSetCurrent through JCuda).
     */
    private static GpuFigure makeCurrentCost(CudaContext ctx, int samples) {
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
        double m = GpuTiming.median(us);
        return new GpuFigure("launch", "makeCurrent (cuCtxSetCurrent, part of every launch): host", m, "us/call", m * 1e-3,
                "median of " + samples + " samples of " + LAUNCHES_PER_SAMPLE + " calls");
    }

    private static List<GpuFigure> time(CudaContext ctx, Case c, int samples) {
        double[] host = new double[samples], gpu = new double[samples];
        int warm = 0;
        long end = System.nanoTime() + (long) (WARMUP_SECONDS * 1e9);
        do {
            queue(ctx, c);
            ctx.synchronize();
            warm += LAUNCHES_PER_SAMPLE;
        } while (System.nanoTime() < end || warm < WARMUP_MIN_LAUNCHES);
        c.check.run();
        try (CudaEvent start = new CudaEvent(ctx); CudaEvent stop = new CudaEvent(ctx)) {
            for (int i = 0; i < samples; i++) {
                ctx.synchronize();
                start.record();
                long t0 = System.nanoTime();
                queue(ctx, c);
                long t1 = System.nanoTime();
                stop.record();
                host[i] = (t1 - t0) / 1e3 / LAUNCHES_PER_SAMPLE;
                gpu[i] = CudaEvent.elapsedMillis(start, stop) * 1e3 / LAUNCHES_PER_SAMPLE;
                c.check.run();
            }
        }
        String note = "median of " + samples + " samples of " + LAUNCHES_PER_SAMPLE + " launches queued without waiting, args built per launch";
        double h = GpuTiming.median(host), g = GpuTiming.median(gpu);
        return List.of(new GpuFigure("launch", c.name + ": host", h, "us/launch", h * 1e-3, note + " (" + warm + " warm-up launches; checked)"),
                new GpuFigure("launch", c.name + ": GPU", g, "us/launch", g * 1e-3,
                        "events around the queued launches: near the host's figure when the GPU waits for the host"));
    }

    private static void queue(CudaContext ctx, Case c) {
        for (int i = 0; i < LAUNCHES_PER_SAMPLE; i++) ctx.launch(c.kernel, 1, c.args.apply(i));
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
