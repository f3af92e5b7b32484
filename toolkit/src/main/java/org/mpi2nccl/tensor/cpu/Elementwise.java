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
                case RELU -> { for (int i = from; i < to; i++) out[i] = a[i] > 0f ? a[i] : 0f; }
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

    static void scalar(BinaryOp op, float[] a, float s, float[] out, int n) {
        long cost = op == BinaryOp.POW ? 32 : 1;
        Parallel.range(n, cost, (from, to) -> {
            switch (op) {
                case ADD -> { for (int i = from; i < to; i++) out[i] = a[i] + s; }
                case SUB -> { for (int i = from; i < to; i++) out[i] = a[i] - s; }
                case MUL -> { for (int i = from; i < to; i++) out[i] = a[i] * s; }
                case DIV -> { for (int i = from; i < to; i++) out[i] = a[i] / s; }
                case RSUB -> { for (int i = from; i < to; i++) out[i] = s - a[i]; }
                case GT -> { for (int i = from; i < to; i++) out[i] = a[i] > s ? 1f : 0f; }
                case POW -> {
                    if (s == 2f) { for (int i = from; i < to; i++) out[i] = a[i] * a[i]; }
                    else { for (int i = from; i < to; i++) out[i] = (float) Math.pow(a[i], s); }
                }
                default -> { for (int i = from; i < to; i++) out[i] = op.apply(a[i], s); }
            }
        });
    }
}
