package org.mpi2nccl.cuda;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.mpi2nccl.tensor.ReduceOp;
import org.mpi2nccl.tensor.Storage;

/**
 * Every variant of the kernel families whose best form depends on the GPU ({@link KernelVariants}), timed and
 * checked in one run, so that one run on the GPU machine says which to keep:
 * <ul>
 *   <li>sum and max over all elements of a {@code bytes} buffer, each {@link FullReductionVariant};</li>
 *   <li>the square transpose of the same buffer, each {@link TransposeVariant}.</li>
 * </ul>
 * The variants are timed in interleaved rounds (v1 v2 v3 ... v1 v2 v3 ...), so a clock or temperature drift
 * during the run does not favour one; the figure is the median of all rounds. Each variant's result is
 * checked against the CPU (the sum within 1e-4 relative of a double sum, as the contract asks of
 * reductions; max and the transpose exactly): a
 * wrong variant is reported as such, whatever its speed. Figures are GB/s and % of the device copy measured in
 * the same run, as in {@link CudaBenchmarks#bandwidth}.
 */
public final class KernelVariantBench {
    private KernelVariantBench() {}

    /** Rounds each variant is timed in (interleaved with the others). */
    static final int ROUNDS = 3;
    /** Untimed calls of a variant before its first round (the JIT has compiled the launch path by then). */
    static final int WARMUP_CALLS = 50;

    private record Case(String family, String variant, String measurement, long traffic, Runnable call, Runnable prepare,
                        Consumer<List<String>> check) {}

    public static List<CudaBenchmarks.Result> run(CudaBackend backend, long bytes, int reps) {
        CudaContext ctx = backend.context();
        long n = bytes / 4;
        int side = (int) Math.sqrt((double) n);
        if ((long) side * side > Integer.MAX_VALUE - 16) throw new IllegalArgumentException("variants: buffer too large for the CPU check (" + bytes + " bytes)");
        TransposeVariant transposeBefore = KernelVariants.transpose();
        FullReductionVariant reductionBefore = KernelVariants.fullReduction();
        List<CudaBenchmarks.Result> out = new ArrayList<>();
        Storage a = backend.allocate(n), c = backend.allocate(n), result = backend.allocate(16);
        try {
            backend.fillUniform(a, n, 0.5f, 1.5f, 3, 0);
            backend.fill(c, 0, n, 0f);
            // the CPU's view of the input, for the checks
            float[] host = new float[(int) n];
            backend.copyToHost(a, 0, host, 0, (int) n);
            double sum = 0;
            float max = Float.NEGATIVE_INFINITY;
            for (float v : host) {
                sum += v;
                max = Math.max(max, v);
            }
            final double wantSum = sum;
            final float wantMax = max;
            DeviceMemory ma = backend.memory(a, "variants"), mc = backend.memory(c, "variants");
            double copyMs = CudaBenchmarks.timeGpu(ctx, reps, CudaBenchmarks.WARMUP_CALLS, () -> mc.copyFrom(ma, 0, 0, n * 4));
            double copyGbs = 2.0 * n * 4 / (copyMs * 1e-3) / 1e9;
            out.add(new CudaBenchmarks.Result("variant", "copy (cuMemcpyDtoD) [variants]", copyGbs, "GB/s", copyMs, "reference for the variants below"));

            List<Case> cases = new ArrayList<>();
            for (FullReductionVariant v : FullReductionVariant.values()) {
                Runnable select = () -> KernelVariants.use(v);
                cases.add(new Case("full-reduction", v.label, "sum (all)", n * 4, () -> backend.reduce(ReduceOp.SUM, a, result, 1, n, 1), select,
                        problems -> {
                            float got = reduceFresh(backend, ReduceOp.SUM, a, result, n);
                            double err = Math.abs(got - wantSum) / Math.abs(wantSum);
                            if (!(err <= 1e-4)) problems.add("sum " + got + ", CPU (double) " + wantSum + ": relative error " + err);
                        }));
                cases.add(new Case("full-reduction", v.label, "max (all)", n * 4, () -> backend.reduce(ReduceOp.MAX, a, result, 1, n, 1), select,
                        problems -> {
                            float got = reduceFresh(backend, ReduceOp.MAX, a, result, n);
                            if (got != wantMax) problems.add("max " + got + ", CPU " + wantMax);
                        }));
            }
            long traffic = 2L * side * side * 4;
            for (TransposeVariant v : TransposeVariant.values()) {
                Runnable transpose = () -> backend.copyStrided(a, 0, new long[] {1, side}, c, 0, new long[] {side, 1}, new int[] {side, side});
                cases.add(new Case("transpose", v.label, "transpose " + side + "x" + side, traffic, transpose, () -> KernelVariants.use(v),
                        problems -> {
                            backend.fill(c, 0, n, Float.NaN);
                            transpose.run();
                            float[] got = new float[side * side];
                            backend.copyToHost(c, 0, got, 0, got.length);
                            for (int i = 0; i < side && problems.isEmpty(); i++) {
                                for (int j = 0; j < side; j++) {
                                    if (Float.compare(got[i * side + j], host[j * side + i]) != 0) {
                                        problems.add("element (" + i + ", " + j + ") is " + got[i * side + j] + ", want " + host[j * side + i]);
                                        break;
                                    }
                                }
                            }
                        }));
            }

            Map<Case, double[]> samples = new LinkedHashMap<>();
            Map<Case, List<String>> problems = new LinkedHashMap<>();
            for (Case k : cases) {
                k.prepare.run();
                List<String> p = new ArrayList<>();
                try {
                    k.check.accept(p);
                } catch (RuntimeException e) {
                    p.add(e.toString());
                }
                problems.put(k, p);
                for (int i = 0; i < WARMUP_CALLS; i++) k.call.run();
                samples.put(k, new double[0]);
            }
            ctx.synchronize();
            for (int round = 0; round < ROUNDS; round++) {
                for (Case k : cases) {
                    k.prepare.run();
                    double[] s = CudaBenchmarks.timeGpuSamples(ctx, reps, 3, k.call);
                    double[] all = Arrays.copyOf(samples.get(k), samples.get(k).length + s.length);
                    System.arraycopy(s, 0, all, all.length - s.length, s.length);
                    samples.put(k, all);
                }
            }
            Map<String, CudaBenchmarks.Result> best = new LinkedHashMap<>();
            for (Case k : cases) {
                double ms = CudaBenchmarks.median(samples.get(k));
                double gbs = k.traffic / (ms * 1e-3) / 1e9;
                List<String> p = problems.get(k);
                String check = p.isEmpty() ? "check OK" : "CHECK FAILED: " + String.join("; ", p);
                boolean isDefault = k.family.equals("transpose") ? k.variant.equals(KernelVariants.DEFAULT_TRANSPOSE.label)
                        : k.variant.equals(KernelVariants.DEFAULT_FULL_REDUCTION.label);
                CudaBenchmarks.Result r = new CudaBenchmarks.Result("variant", k.measurement + " [" + k.family + "=" + k.variant + "]", gbs,
                        "GB/s", ms, String.format("%.1f%% of copy; %s%s", 100 * gbs / copyGbs, check, isDefault ? "; the default" : ""));
                out.add(r);
                CudaBenchmarks.Result b = best.get(k.measurement);
                if (p.isEmpty() && (b == null || r.value() > b.value())) best.put(k.measurement, r);
            }
            for (Map.Entry<String, CudaBenchmarks.Result> e : best.entrySet()) {
                CudaBenchmarks.Result b = e.getValue();
                out.add(new CudaBenchmarks.Result("variant-best", e.getKey(), b.value(), "GB/s", b.ms(),
                        String.format("%.1f%% of copy: %s", 100 * b.value() / copyGbs, b.name().substring(b.name().indexOf('[')))));
            }
        } finally {
            KernelVariants.use(transposeBefore);
            KernelVariants.use(reductionBefore);
            a.close();
            c.close();
            result.close();
        }
        return out;
    }

    /** The reduction of all n elements into a result first set to NaN (so a kernel that writes nothing shows). */
    private static float reduceFresh(CudaBackend backend, ReduceOp op, Storage in, Storage result, long n) {
        backend.fill(result, 0, 1, Float.NaN);
        backend.reduce(op, in, result, 1, n, 1);
        float[] v = new float[1];
        backend.copyToHost(result, 0, v, 0, 1);
        return v[0];
    }
}
