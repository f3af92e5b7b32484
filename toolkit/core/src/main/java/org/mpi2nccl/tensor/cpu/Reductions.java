package org.mpi2nccl.tensor.cpu;

import org.mpi2nccl.tensor.ReduceOp;

/** Reduction of the middle axis of (outer, reduced, inner); sums accumulate in double. */
final class Reductions {
    private Reductions() {}

    static void reduce(ReduceOp op, float[] a, float[] out, int outer, int reduced, int inner) {
        if (inner == 1) {
            Parallel.range(outer, reduced, (from, to) -> {
                for (int o = from; o < to; o++) out[o] = row(op, a, o * reduced, reduced);
            });
            return;
        }
        // inner > 1: walk rows of `inner` contiguous elements, parallel over outer x inner blocks
        int blocks = outer;
        Parallel.range(blocks, (long) reduced * inner, (from, to) -> {
            double[] acc = new double[inner];
            float[] best = new float[inner];
            int[] arg = new int[inner];
            for (int o = from; o < to; o++) {
                int base = o * reduced * inner;
                switch (op) {
                    case SUM -> {
                        java.util.Arrays.fill(acc, 0.0);
                        for (int r = 0; r < reduced; r++) {
                            int p = base + r * inner;
                            for (int i = 0; i < inner; i++) acc[i] += a[p + i];
                        }
                        for (int i = 0; i < inner; i++) out[o * inner + i] = (float) acc[i];
                    }
                    case MAX, MIN, ARGMAX -> {
                        System.arraycopy(a, base, best, 0, inner);
                        java.util.Arrays.fill(arg, 0);
                        for (int r = 1; r < reduced; r++) {
                            int p = base + r * inner;
                            for (int i = 0; i < inner; i++) {
                                float v = a[p + i];
                                if (op == ReduceOp.MIN ? v < best[i] : v > best[i]) { best[i] = v; arg[i] = r; }
                            }
                        }
                        for (int i = 0; i < inner; i++) out[o * inner + i] = op == ReduceOp.ARGMAX ? arg[i] : best[i];
                    }
                }
            }
        });
    }

    private static float row(ReduceOp op, float[] a, int start, int n) {
        switch (op) {
            case SUM -> {
                // four float lanes (independent adds the CPU can overlap), combined in double every 256 elements
                double total = 0;
                for (int blk = 0; blk < n; blk += 256) {
                    int end = Math.min(n, blk + 256);
                    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                    int i = blk;
                    for (; i + 3 < end; i += 4) {
                        s0 += a[start + i];
                        s1 += a[start + i + 1];
                        s2 += a[start + i + 2];
                        s3 += a[start + i + 3];
                    }
                    for (; i < end; i++) s0 += a[start + i];
                    total += (double) s0 + s1 + s2 + s3;
                }
                return (float) total;
            }
            case MAX -> {
                float m = a[start];
                for (int i = 1; i < n; i++) m = Math.max(m, a[start + i]);
                return m;
            }
            case MIN -> {
                float m = a[start];
                for (int i = 1; i < n; i++) m = Math.min(m, a[start + i]);
                return m;
            }
            default -> {
                float m = a[start];
                int arg = 0;
                for (int i = 1; i < n; i++) if (a[start + i] > m) { m = a[start + i]; arg = i; }
                return arg;
            }
        }
    }
}
