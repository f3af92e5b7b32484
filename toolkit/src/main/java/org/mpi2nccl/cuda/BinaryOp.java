package org.mpi2nccl.cuda;

/**
 * The binary elementwise ops of native/elementwise.cu, each with its three kernels (contiguous, strided
 * with broadcasting, with a scalar) and the exact float semantics as Java code (what the CPU backend
 * computes, and what the GPU tests compare against).
 */
public enum BinaryOp {
    ADD("add") { public float apply(float a, float b) { return a + b; } },
    SUB("sub") { public float apply(float a, float b) { return a - b; } },
    MUL("mul") { public float apply(float a, float b) { return a * b; } },
    DIV("div") { public float apply(float a, float b) { return a / b; } },
    POW("pow") { public float apply(float a, float b) { return (float) Math.pow(a, b); } },
    MAXIMUM("maximum") { public float apply(float a, float b) { return Math.max(a, b); } },
    MINIMUM("minimum") { public float apply(float a, float b) { return Math.min(a, b); } },
    EQ("eq") { public float apply(float a, float b) { return a == b ? 1f : 0f; } },
    NE("ne") { public float apply(float a, float b) { return a != b ? 1f : 0f; } },
    GT("gt") { public float apply(float a, float b) { return a > b ? 1f : 0f; } },
    GE("ge") { public float apply(float a, float b) { return a >= b ? 1f : 0f; } },
    LT("lt") { public float apply(float a, float b) { return a < b ? 1f : 0f; } },
    LE("le") { public float apply(float a, float b) { return a <= b ? 1f : 0f; } },
    /** a = relu's input x, b = output gradient */
    RELU_BACKWARD("relu_backward") { public float apply(float a, float b) { return a > 0f ? b : 0f; } },
    /** a = tanh's output y, b = output gradient */
    TANH_BACKWARD("tanh_backward") { public float apply(float a, float b) { return b * (1f - a * a); } },
    /** a = sigmoid's output y, b = output gradient */
    SIGMOID_BACKWARD("sigmoid_backward") { public float apply(float a, float b) { return b * a * (1f - a); } };

    public final Kernel contiguous;
    public final Kernel strided;
    public final Kernel scalar;

    BinaryOp(String op) {
        contiguous = Kernel.of("elementwise", "ew_" + op + "_f32", "pppl", Kernel.Launch.PER_ELEMENT);
        strided = Kernel.of("elementwise", "ew_" + op + "_strided_f32", "pLpLpl", Kernel.Launch.PER_ELEMENT);
        scalar = Kernel.of("elementwise", "ew_" + op + "_scalar_f32", "pfpli", Kernel.Launch.PER_ELEMENT);
    }

    /** The op on one pair of floats, as the kernel computes it (up to the GPU's math library ulps). */
    public abstract float apply(float a, float b);
}
