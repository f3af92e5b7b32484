package org.mpi2nccl.tensor;

/**
 * Elementwise functions of one operand, {@code out[i] = f(a[i])}. {@link #apply} is the reference
 * definition; transcendental functions may differ from it by a few ulp on other devices.
 */
public enum UnaryOp {
    NEG, ABS, EXP, LOG, SQRT, TANH, RELU,
    /** {@code 1 / (1 + exp(-a))}. */
    SIGMOID,
    /** -1, 0 or 1 (0 for zero and NaN stays NaN). */
    SIGN,
    SQUARE,
    RECIPROCAL;

    public float apply(float a) {
        return switch (this) {
            case NEG -> -a;
            case ABS -> Math.abs(a);
            case EXP -> (float) Math.exp(a);
            case LOG -> (float) Math.log(a);
            case SQRT -> (float) Math.sqrt(a);
            case TANH -> (float) Math.tanh(a);
            case RELU -> Math.max(a, 0f); // NaN stays NaN, like PyTorch
            case SIGMOID -> (float) (1.0 / (1.0 + Math.exp(-a)));
            case SIGN -> Math.signum(a);
            case SQUARE -> a * a;
            case RECIPROCAL -> 1f / a;
        };
    }
}
