package org.mpi2nccl.tensor.cpu;

import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.UnaryOp;

/**
 * Elementwise loops. The switch is outside the loop so that each loop body is one simple expression the JIT
 * can vectorise; the rarer ops fall back to the reference {@code apply}.
 */
final class Elementwise {
    private Elementwise() {}

    static void unary(UnaryOp op, float[] a, float[] out, int n) {
        long cost = switch (op) { case NEG, ABS, RELU, SQUARE -> 1; default -> 16; };
        Parallel.range(n, cost, (from, to) -> {
            switch (op) {
                case NEG -> { for (int i = from; i < to; i++) out[i] = -a[i]; }
                case RELU -> { for (int i = from; i < to; i++) out[i] = Math.max(a[i], 0f); }
                case SQUARE -> { for (int i = from; i < to; i++) out[i] = a[i] * a[i]; }
                case EXP -> { for (int i = from; i < to; i++) out[i] = (float) Math.exp(a[i]); }
                case LOG -> { for (int i = from; i < to; i++) out[i] = (float) Math.log(a[i]); }
                case SQRT -> { for (int i = from; i < to; i++) out[i] = (float) Math.sqrt(a[i]); }
                default -> { for (int i = from; i < to; i++) out[i] = op.apply(a[i]); }
            }
        });
    }

    static void binary(BinaryOp op, float[] a, float[] b, float[] out, int n) {
        long cost = op == BinaryOp.POW ? 32 : 1;
        Parallel.range(n, cost, (from, to) -> {
            switch (op) {
                case ADD -> { for (int i = from; i < to; i++) out[i] = a[i] + b[i]; }
                case SUB -> { for (int i = from; i < to; i++) out[i] = a[i] - b[i]; }
                case MUL -> { for (int i = from; i < to; i++) out[i] = a[i] * b[i]; }
                case DIV -> { for (int i = from; i < to; i++) out[i] = a[i] / b[i]; }
                default -> { for (int i = from; i < to; i++) out[i] = op.apply(a[i], b[i]); }
            }
        });
    }

    /**
     * 1 if x > y else 0, without a branch (a data-dependent branch mispredicts half the time on activations):
     * the sign bit of {@code (y - x) + 0}, where adding +0 turns a -0 difference into +0. NaN gives 0 as
     * as long as the NaN is positive (Java's Float.NaN and the NaNs arithmetic makes from it).
     */
    static float greater(float x, float y) {
        return Float.floatToRawIntBits((y - x) + 0f) >>> 31;
    }

    static void scalar(BinaryOp op, float[] a, float s, float[] out, int n) {
        long cost = op == BinaryOp.POW ? 32 : 1;
        Parallel.range(n, cost, (from, to) -> {
            switch (op) {
                case ADD -> { for (int i = from; i < to; i++) out[i] = a[i] + s; }
                case SUB -> { for (int i = from; i < to; i++) out[i] = a[i] - s; }
                case MUL -> { for (int i = from; i < to; i++) out[i] = a[i] * s; }
                case DIV -> { for (int i = from; i < to; i++) out[i] = a[i] / s; }
                case RSUB -> { for (int i = from; i < to; i++) out[i] = s - a[i]; }
                case GT -> {
                    if (Float.isNaN(s)) java.util.Arrays.fill(out, from, to, 0f);
                    else for (int i = from; i < to; i++) out[i] = greater(a[i], s);
                }
                case LT -> {
                    if (Float.isNaN(s)) java.util.Arrays.fill(out, from, to, 0f);
                    else for (int i = from; i < to; i++) out[i] = greater(s, a[i]);
                }
                case MAXIMUM -> { for (int i = from; i < to; i++) out[i] = Math.max(a[i], s); }
                case POW -> {
                    if (s == 2f) { for (int i = from; i < to; i++) out[i] = a[i] * a[i]; }
                    else { for (int i = from; i < to; i++) out[i] = (float) Math.pow(a[i], s); }
                }
                default -> { for (int i = from; i < to; i++) out[i] = op.apply(a[i], s); }
            }
        });
    }

    /** out[o, c, i] = a[o, c, i] op b[c]. */
    static void broadcast(BinaryOp op, float[] a, float[] b, float[] out, int outer, int channels, int inner) {
        if (inner == 1) {
            Parallel.range(outer, channels, (from, to) -> {
                for (int o = from; o < to; o++) {
                    int base = o * channels;
                    switch (op) {
                        case ADD -> { for (int c = 0; c < channels; c++) out[base + c] = a[base + c] + b[c]; }
                        case SUB -> { for (int c = 0; c < channels; c++) out[base + c] = a[base + c] - b[c]; }
                        case MUL -> { for (int c = 0; c < channels; c++) out[base + c] = a[base + c] * b[c]; }
                        case DIV -> { for (int c = 0; c < channels; c++) out[base + c] = a[base + c] / b[c]; }
                        default -> { for (int c = 0; c < channels; c++) out[base + c] = op.apply(a[base + c], b[c]); }
                    }
                }
            });
            return;
        }
        Parallel.range(outer * channels, inner, (from, to) -> {
            for (int r = from; r < to; r++) {
                float v = b[r % channels];
                int base = r * inner;
                switch (op) {
                    case ADD -> { for (int i = 0; i < inner; i++) out[base + i] = a[base + i] + v; }
                    case SUB -> { for (int i = 0; i < inner; i++) out[base + i] = a[base + i] - v; }
                    case MUL -> { for (int i = 0; i < inner; i++) out[base + i] = a[base + i] * v; }
                    case DIV -> { for (int i = 0; i < inner; i++) out[base + i] = a[base + i] / v; }
                    case RSUB -> { for (int i = 0; i < inner; i++) out[base + i] = v - a[base + i]; }
                    default -> { for (int i = 0; i < inner; i++) out[base + i] = op.apply(a[base + i], v); }
                }
            }
        });
    }
}
