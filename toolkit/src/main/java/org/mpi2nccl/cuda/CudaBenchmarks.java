package org.mpi2nccl.cuda;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.ReduceOp;
import org.mpi2nccl.tensor.Storage;
import org.mpi2nccl.tensor.UnaryOp;

/**
 * The GPU measurements the issue asks for, all timed on one GPU in one process:
 * <ul>
 *   <li>GEMM n x n x n float32 through cuBLAS (TF32 off and on), timed with CUDA events;</li>
 *   <li>elementwise and reduction kernels on a large buffer, as GB/s of memory traffic next to the device's
 *       own copy (cuMemcpyDtoD) measured the same way;</li>
 *   <li>host <-> GPU staging, the MPI lesson's route: pageable Java arrays, pinned buffers, and pinned plus the
 *       Java-array copy that feeding MPJ needs.</li>
 * </ul>
 * Each figure is the median of several timed repetitions after warm-up runs. The lesson CNN's training step is
 * timed by {@link TrainStepBench}, with the timing helpers here.
 */
public final class CudaBenchmarks {
    private CudaBenchmarks() {}

    /** One measured figure. {@code value} in {@code unit}; {@code ms} per repetition (median). */
    public record Result(String group, String name, double value, String unit, double ms, String note) {}

    // ---- GEMM --------------------------------------------------------------------------------------------

    /** Seconds of GEMMs run untimed before each GEMM figure: the GPU's clocks and temperature settle first. */
    static final double GEMM_WARMUP_SECONDS = 1.0;
    /** GEMMs queued back to back between two events per sample (the host's launch time stays out of the figure). */
    static final int GEMM_BATCH = 10;
    /** Fewest samples per GEMM figure. */
    static final int GEMM_MIN_SAMPLES = 30;

    /**
     * n x n x n float32 GEMM, row-major C = A B (as torch.mm(a, b, out=c) in the peer), TF32 off and on, through
     * both cuBLAS routes ({@link Cublas.Route}). Each figure: {@value #GEMM_WARMUP_SECONDS} s of untimed GEMMs,
     * then at least {@value #GEMM_MIN_SAMPLES} samples of {@value #GEMM_BATCH} GEMMs between two events; the
     * median sample is the figure, the note gives the spread. The rows named like the peer's
     * ("sgemm 4096^3 tf32") are the backend's default route.
     */
    public static List<Result> gemm(CudaBackend backend, int n, int reps) {
        CudaContext ctx = backend.context();
        Cublas blas = ctx.cublas();
        List<Result> out = new ArrayList<>();
        withGemmOperands(backend, n, (routeBefore, a, b, c) -> {
            for (Cublas.Route route : new Cublas.Route[] {routeBefore, other(routeBefore)}) {
                blas.setRoute(route);
                for (boolean tf32 : new boolean[] {false, true}) {
                    backend.setTf32(tf32);
                    Runnable gemm = () -> backend.matmul(a, b, c, 1, n, n, n, false, false, 0, 0);
                    int warm = warmUp(ctx, gemm, GEMM_WARMUP_SECONDS);
                    double[] ms = timeGpuBatches(ctx, Math.max(reps, GEMM_MIN_SAMPLES), GEMM_BATCH, gemm);
                    double[] tflops = Arrays.stream(ms).map(t -> 2.0 * n * n * n / (t * 1e-3) / 1e12).sorted().toArray();
                    double med = median(ms);
                    String call = route == Cublas.Route.GEMM_EX ? "cublasGemmEx, compute " + (tf32 ? "32F_FAST_TF32" : "32F")
                            : "cublasSgemm, math mode " + (tf32 ? "TF32_TENSOR_OP" : "DEFAULT") + " (PyTorch's call)";
                    String name = "sgemm " + n + "^3 " + (tf32 ? "tf32" : "float32") + (route == routeBefore ? "" : " [" + route.name().toLowerCase(java.util.Locale.ROOT) + "]");
                    out.add(new Result("gemm", name, 2.0 * n * n * n / (med * 1e-3) / 1e12, "TFLOP/s", med,
                            String.format("%s; median of %d samples of %d back to back (%.1f .. %.1f TFLOP/s) after %d warm-up GEMMs; workspace %d MiB",
                                    call, ms.length, GEMM_BATCH, tflops[0], tflops[tflops.length - 1], warm, blas.workspaceBytes() >> 20)));
                }
            }
        });
        return out;
    }

    /**
     * One n x n x n GEMM per cuBLAS route and TF32 setting, each on its own, synchronized: run with cuBLAS's API log
     * on (CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG=FILE, and CUBLASLT_LOG_LEVEL for the kernel cuBLAS picks), it shows
     * exactly which calls, math modes and workspace the toolkit hands cuBLAS, to set beside the same log of torch.mm
     * (results/device/cuda5-check.sh). The figure is that one call's time, for orientation only.
     */
    public static List<Result> gemmCalls(CudaBackend backend, int n) {
        CudaContext ctx = backend.context();
        Cublas blas = ctx.cublas();
        List<Result> out = new ArrayList<>();
        withGemmOperands(backend, n, (routeBefore, a, b, c) -> {
            for (Cublas.Route route : Cublas.Route.values()) {
                blas.setRoute(route);
                for (boolean tf32 : new boolean[] {false, true}) {
                    backend.setTf32(tf32);
                    System.out.println("gemm-calls: route " + route + ", tf32 " + tf32 + (route == routeBefore ? " (the default route)" : ""));
                    double ms = timeGpu(ctx, 1, 0, () -> backend.matmul(a, b, c, 1, n, n, n, false, false, 0, 0));
                    out.add(new Result("gemm-call", "sgemm " + n + "^3 " + (tf32 ? "tf32" : "float32") + " [" + route.name().toLowerCase(java.util.Locale.ROOT) + "]",
                            2.0 * n * n * n / (ms * 1e-3) / 1e12, "TFLOP/s", ms, "one call, no warm-up: for the cuBLAS log, not a figure"));
                }
            }
        });
        return out;
    }

    /** What a GEMM benchmark does with its operands; {@code routeBefore} is the cuBLAS route it found (the default). */
    private interface GemmBody {
        void run(Cublas.Route routeBefore, Storage a, Storage b, Storage c);
    }

    /**
     * Runs {@code body} on n x n operands A and B (uniform in [-1, 1], seeds 1 and 2) and C, then puts cuBLAS's route
     * back, TF32 off, and frees the three, whatever the body did or threw.
     */
    private static void withGemmOperands(CudaBackend backend, int n, GemmBody body) {
        Cublas blas = backend.context().cublas();
        Cublas.Route routeBefore = blas.route();
        Storage a = backend.allocate((long) n * n), b = backend.allocate((long) n * n), c = backend.allocate((long) n * n);
        try {
            backend.fillUniform(a, (long) n * n, -1, 1, 1, 0);
            backend.fillUniform(b, (long) n * n, -1, 1, 2, 0);
            body.run(routeBefore, a, b, c);
        } finally {
            blas.setRoute(routeBefore);
            backend.setTf32(false);
            a.close();
            b.close();
            c.close();
        }
    }

    private static Cublas.Route other(Cublas.Route r) {
        return r == Cublas.Route.GEMM_EX ? Cublas.Route.SGEMM_MATH_MODE : Cublas.Route.GEMM_EX;
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

    // ---- memory-bound kernels ----------------------------------------------------------------------------------

    /**
     * Untimed calls before a bandwidth figure. Enough for the JIT to have compiled the launch path of each case
     * (as it has in a training loop), so the figure is the kernel's and not the interpreter's: the GPU event
     * that starts the timing is recorded before the host has queued the kernel.
     */
    static final int WARMUP_CALLS = 200;
    /** Calls queued between two events for the back-to-back figure in each bandwidth note. */
    static final int BACK_TO_BACK = 10;

    /** Rounds of the interleaved bandwidth and variant timings (every case once per round, in list order). */
    static final int ROUNDS = 5;

    /**
     * Kernels on {@code bytes}-sized float buffers; traffic counted as bytes read + written. Every case, the copy
     * that is the reference included, is first warmed up ({@value #WARMUP_CALLS} untimed calls each) and then timed
     * in {@value #ROUNDS} interleaved rounds (copy, fill, add, ..., copy, fill, add, ...): a drift of the GPU's clocks
     * or temperature during the run, or the order of the cases, does not favour one. Each round takes
     * {@code reps / ROUNDS} (at least 3) single-call samples and one sample of {@value #BACK_TO_BACK} calls queued
     * back to back; the figures are the medians over all rounds.
     */
    public static List<Result> bandwidth(CudaBackend backend, long bytes, int reps) {
        CudaContext ctx = backend.context();
        long n = bytes / 4;
        long side = (long) Math.sqrt((double) n);
        List<Result> out = new ArrayList<>();
        Storage a = backend.allocate(n), b = backend.allocate(n), c = backend.allocate(n), small = backend.allocate(Math.max(n / 1024, 65536));
        try {
            backend.fillUniform(a, n, 0.5f, 1.5f, 3, 0);
            backend.fillUniform(b, n, 0.5f, 1.5f, 4, 0);
            backend.fill(c, 0, n, 0f);
            DeviceMemory ma = backend.memory(a, "bench"), mc = backend.memory(c, "bench");
            List<Timed> cases = new ArrayList<>();
            cases.add(new Timed("copy (cuMemcpyDtoD)", 2 * n * 4, () -> mc.copyFrom(ma, 0, 0, n * 4)));
            cases.add(new Timed("fill", n * 4, () -> backend.fill(c, 0, n, 1f)));
            cases.add(new Timed("add a+b", 3 * n * 4, () -> backend.binary(BinaryOp.ADD, a, b, c, n)));
            cases.add(new Timed("mul a*2", 2 * n * 4, () -> backend.binaryScalar(BinaryOp.MUL, a, 2f, c, n)));
            cases.add(new Timed("exp", 2 * n * 4, () -> backend.unary(UnaryOp.EXP, a, c, n)));
            cases.add(new Timed("relu", 2 * n * 4, () -> backend.unary(UnaryOp.RELU, a, c, n)));
            cases.add(new Timed("sgd step (momentum)", 5 * n * 4, () -> backend.sgdStep(c, a, b, n, 1e-9f, 0.9f, 0f)));
            cases.add(new Timed("sum (all)", n * 4, () -> backend.reduce(ReduceOp.SUM, a, small, 1, n, 1)));
            cases.add(new Timed("max (all)", n * 4, () -> backend.reduce(ReduceOp.MAX, a, small, 1, n, 1)));
            cases.add(new Timed("sum rows (" + n / 1024 + " x 1024)", n * 4, () -> backend.reduce(ReduceOp.SUM, a, small, n / 1024, 1024, 1)));
            cases.add(new Timed("sum columns (1024 x " + n / 1024 + ")", n * 4, () -> backend.reduce(ReduceOp.SUM, a, small, 1, 1024, n / 1024)));
            cases.add(new Timed("transpose " + side + "x" + side, 2 * side * side * 4, () -> backend.copyStrided(a, 0, new long[] {1, side}, c, 0,
                    new long[] {side, 1}, new int[] {(int) side, (int) side})));
            interleaved(ctx, cases, reps);
            Timed copy = cases.get(0);
            double copyGbs = copy.gbs(copy.singleMs());
            for (Timed k : cases) {
                double gbs = k.gbs(k.singleMs()), queuedGbs = k.gbs(k.queuedMs());
                String note = k == copy ? String.format("reference: 1 read + 1 write; %d back to back: %.0f GB/s", BACK_TO_BACK, queuedGbs)
                        : String.format("%.0f%% of copy; %d back to back: %.0f GB/s (%.0f%%)", 100 * gbs / copyGbs, BACK_TO_BACK, queuedGbs, 100 * queuedGbs / copyGbs);
                out.add(new Result("bandwidth", k.name, gbs, "GB/s", k.singleMs(), note + "; interleaved rounds: " + ROUNDS));
            }
        } finally {
            a.close();
            b.close();
            c.close();
            small.close();
        }
        return out;
    }

    /**
     * A call timed by {@link #interleaved}: {@code traffic} bytes read + written per call, {@code prepare} run before
     * its warm-up and before each of its rounds (a kernel variant selects itself there).
     */
    static final class Timed {
        final String name;
        final long traffic;
        final Runnable call, prepare;
        double[] single = new double[0], queued = new double[0];

        Timed(String name, long traffic, Runnable call) {
            this(name, traffic, call, () -> {});
        }

        Timed(String name, long traffic, Runnable call, Runnable prepare) {
            this.name = name;
            this.traffic = traffic;
            this.call = call;
            this.prepare = prepare;
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
     * Warms every case up ({@value #WARMUP_CALLS} untimed calls each, after its prepare), then times them in
     * {@value #ROUNDS} rounds, each case once per round in list order: {@code max(3, reps / ROUNDS)} event-timed
     * single calls and one sample of {@value #BACK_TO_BACK} calls queued between two events.
     */
    static void interleaved(CudaContext ctx, List<Timed> cases, int reps) {
        for (Timed k : cases) {
            k.prepare.run();
            for (int i = 0; i < WARMUP_CALLS; i++) k.call.run();
        }
        ctx.synchronize();
        int perRound = Math.max(3, reps / ROUNDS);
        for (int round = 0; round < ROUNDS; round++) {
            for (Timed k : cases) {
                k.prepare.run();
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

    // ---- host <-> device staging -------------------------------------------------------------------------------

    /** The MPI route's copies for each size in bytes: pageable arrays, pinned buffers, pinned + Java copy. */
    public static List<Result> staging(CudaContext ctx, long[] sizes, int reps) {
        List<Result> out = new ArrayList<>();
        for (long bytes : sizes) {
            int n = (int) (bytes / 4);
            float[] host = new float[n];
            Arrays.fill(host, 1.25f);
            String mib = bytes / (1024 * 1024) + " MiB";
            try (DeviceMemory d = ctx.allocate(bytes); PinnedHostBuffer pinned = PinnedHostBuffer.allocate(ctx, bytes)) {
                FloatBuffer pf = pinned.floatBuffer();
                add(out, "staging", "float[] -> GPU (pageable) " + mib, bytes, timeHost(reps, () -> d.copyFrom(host)));
                add(out, "staging", "GPU -> float[] (pageable) " + mib, bytes, timeHost(reps, () -> d.copyTo(host)));
                add(out, "staging", "pinned -> GPU " + mib, bytes, timeHost(reps, () -> pinned.copyToDevice(d, bytes)));
                add(out, "staging", "GPU -> pinned " + mib, bytes, timeHost(reps, () -> pinned.copyFromDevice(d, bytes)));
                add(out, "staging", "float[] -> pinned -> GPU " + mib, bytes, timeHost(reps, () -> {
                    pf.clear();
                    pf.put(host);
                    pinned.copyToDevice(d, bytes);
                }));
                add(out, "staging", "GPU -> pinned -> float[] " + mib, bytes, timeHost(reps, () -> {
                    pinned.copyFromDevice(d, bytes);
                    pf.clear();
                    pf.get(host);
                }));
            }
        }
        return out;
    }

    private static void add(List<Result> out, String group, String name, long bytes, double ms) {
        out.add(new Result(group, name, bytes / (ms * 1e-3) / 1e9, "GB/s", ms, ""));
    }

    // ---- timing --------------------------------------------------------------------------------------------------

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

    /** Median GPU milliseconds per call of {@code body} when {@code batch} calls are queued between two events. */
    static double timeGpuQueued(CudaContext ctx, int reps, int batch, Runnable body) {
        return median(timeGpuBatches(ctx, reps, batch, body));
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

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
