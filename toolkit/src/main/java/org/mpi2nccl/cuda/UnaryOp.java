package org.mpi2nccl.cuda;

/** The unary elementwise ops of native/elementwise.cu (contiguous and strided kernels each). */
public enum UnaryOp {
    NEG("neg") { public float apply(float a) { return -a; } },
    ABS("abs") { public float apply(float a) { return Math.abs(a); } },
    EXP("exp") { public float apply(float a) { return (float) Math.exp(a); } },
    LOG("log") { public float apply(float a) { return (float) Math.log(a); } },
    SQRT("sqrt") { public float apply(float a) { return (float) Math.sqrt(a); } },
    RSQRT("rsqrt") { public float apply(float a) { return (float) (1.0 / Math.sqrt(a)); } },
    SQUARE("square") { public float apply(float a) { return a * a; } },
    RECIPROCAL("reciprocal") { public float apply(float a) { return 1f / a; } },
    SIGN("sign") { public float apply(float a) { return a > 0f ? 1f : (a < 0f ? -1f : 0f); } },
    RELU("relu") { public float apply(float a) { return a > 0f ? a : 0f; } },
    TANH("tanh") { public float apply(float a) { return (float) Math.tanh(a); } },
    SIGMOID("sigmoid") { public float apply(float a) { return (float) (1.0 / (1.0 + Math.exp(-a))); } };

    public final Kernel contiguous;
    public final Kernel strided;

    UnaryOp(String op) {
        contiguous = Kernel.of("elementwise", "ew_" + op + "_f32", "ppl", Kernel.Launch.PER_ELEMENT);
        strided = Kernel.of("elementwise", "ew_" + op + "_strided_f32", "pLpl", Kernel.Launch.PER_ELEMENT);
    }

    /** The op on one float, as the kernel computes it (up to the GPU's math library ulps). */
    public abstract float apply(float a);
}
