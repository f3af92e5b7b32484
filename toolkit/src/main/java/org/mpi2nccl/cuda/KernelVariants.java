package org.mpi2nccl.cuda;

/**
 * Which variant of a kernel family the CUDA backend launches, for the families whose best form depends on the
 * GPU: the tiled transpose ({@link TransposeVariant}), the reduction of a few long rows
 * ({@link FullReductionVariant}) and the reduction over columns ({@link ColumnReductionVariant}). The defaults are the best of `bench-gpu --only variants` on 2x H200 (2026-11-22,
 * results/gpu-2026-11-22-s2/): transpose 64x64 84.2% of copy (the float4 tiles 61-73%), sum (all) one-pass/4 90.2%;
 * sum over columns (1024 x 65536) one-pass/wave 83.4% (two-pass/16, the first plan, 75.8%; one-pass/16 72.0%;
 * one-pass-8loads/wave 71.7%) on 2x H200 in the third session's run (results/gpu-2026-11-22-s3/).
 * {@code MPI2NCCL_KERNEL_VARIANTS="transpose=64x64,full-reduction=two-pass/16,column-reduction=one-pass/wave"}
 * chooses others for a whole run,
 * {@link #use} for the rest of the process (the benchmark switches between them this way). Every variant gives
 * the same results: the GPU tests and native/cpu-check check each one.
 */
public final class KernelVariants {
    private KernelVariants() {}

    /** The defaults: change them here when `bench-gpu --only variants` on the GPU machine names a better one. */
    public static final TransposeVariant DEFAULT_TRANSPOSE = TransposeVariant.TILE_64X64;
    public static final FullReductionVariant DEFAULT_FULL_REDUCTION = FullReductionVariant.ONE_PASS_4;
    public static final ColumnReductionVariant DEFAULT_COLUMN_REDUCTION = ColumnReductionVariant.ONE_PASS_WAVE;

    private static volatile TransposeVariant transpose = DEFAULT_TRANSPOSE;
    private static volatile FullReductionVariant fullReduction = DEFAULT_FULL_REDUCTION;
    private static volatile ColumnReductionVariant columnReduction = DEFAULT_COLUMN_REDUCTION;

    static {
        String env = System.getenv("MPI2NCCL_KERNEL_VARIANTS");
        if (env != null && !env.isBlank()) {
            try {
                use(env);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("MPI2NCCL_KERNEL_VARIANTS=" + env + ": " + e.getMessage()
                        + ". Fix or unset the variable.", e);
            }
        }
    }

    public static TransposeVariant transpose() {
        return transpose;
    }

    public static FullReductionVariant fullReduction() {
        return fullReduction;
    }

    public static ColumnReductionVariant columnReduction() {
        return columnReduction;
    }

    public static void use(ColumnReductionVariant v) {
        columnReduction = java.util.Objects.requireNonNull(v);
    }

    public static void use(TransposeVariant v) {
        transpose = java.util.Objects.requireNonNull(v);
    }

    public static void use(FullReductionVariant v) {
        fullReduction = java.util.Objects.requireNonNull(v);
    }

    /**
     * Applies a comma-separated list of {@code family=variant} ({@code transpose=128x64-v4,full-reduction=one-pass/4}).
     * A bad family or variant name is an IllegalArgumentException that lists the valid ones.
     */
    public static void use(String spec) {
        for (String item : spec.split(",")) {
            String s = item.trim();
            if (s.isEmpty()) continue;
            int eq = s.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("kernel variant '" + s + "': write family=variant, e.g. transpose=64x64-v4");
            String family = s.substring(0, eq).trim(), variant = s.substring(eq + 1).trim();
            switch (family) {
                case "transpose" -> use(TransposeVariant.byName(variant));
                case "full-reduction" -> use(FullReductionVariant.byName(variant));
                case "column-reduction" -> use(ColumnReductionVariant.byName(variant));
                default -> throw new IllegalArgumentException("kernel variant family '" + family
                        + "': use transpose, full-reduction or column-reduction (MPI2NCCL_KERNEL_VARIANTS or KernelVariants.use)");
            }
        }
    }

    /** "transpose=64x64, full-reduction=one-pass/4, column-reduction=two-pass/16": the variants in use, for reports. */
    public static String describe() {
        return "transpose=" + transpose.label + ", full-reduction=" + fullReduction.label + ", column-reduction=" + columnReduction.label;
    }
}
