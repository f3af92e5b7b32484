package org.mpi2nccl.tensor;

/**
 * Elementwise operations of two operands, {@code out[i] = a[i] OP b[i]} (or {@code a[i] OP scalar}).
 * Comparisons produce 1.0f for true and 0.0f for false. A backend implements every constant; the
 * {@link #apply} method is the reference definition (float32 arithmetic, as Java evaluates it).
 */
public enum BinaryOp {
    ADD, SUB, MUL, DIV,
    /** {@code b - a}: lets a scalar stand on the left ({@code s - x}) without a second kernel. */
    RSUB,
    /** {@code b / a}: lets a scalar stand on the left ({@code s / x}). */
    RDIV,
    /** {@code (float) Math.pow(a, b)}. */
    POW,
    MAXIMUM, MINIMUM,
    EQ, NE, GT, GE, LT, LE;

    /** The reference result for one pair of elements; backends must agree with it (see the contract test). */
    public float apply(float a, float b) {
        return switch (this) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> a / b;
            case RSUB -> b - a;
            case RDIV -> b / a;
            case POW -> (float) Math.pow(a, b);
            case MAXIMUM -> Math.max(a, b);
            case MINIMUM -> Math.min(a, b);
            case EQ -> a == b ? 1f : 0f;
            case NE -> a != b ? 1f : 0f;
            case GT -> a > b ? 1f : 0f;
            case GE -> a >= b ? 1f : 0f;
            case LT -> a < b ? 1f : 0f;
            case LE -> a <= b ? 1f : 0f;
        };
    }
}
