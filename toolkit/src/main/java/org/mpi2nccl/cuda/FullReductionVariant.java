package org.mpi2nccl.cuda;

import java.util.Arrays;

/**
 * How a reduction over a few long rows (a sum over all elements is one row) is spread over the GPU: each row is
 * cut into parts, one block each, {@code blocksPerSm} blocks per SM in all, and the parts' results are combined
 * either by a second launch ({@code onePass == false}: reduce_*_rows_f32 twice) or by the last block of each
 * row to finish, in the same launch (reduce_*_rows_last_f32; no second launch and no gap between the two).
 * {@code loads8} uses the kernel that keeps 8 float4 loads in flight per thread instead of 4 (sums only; MAX and
 * MIN use the 4-load kernel). The backend uses {@link KernelVariants#fullReduction()}; {@code mpi2nccl bench-gpu
 * --only variants} times and checks every one.
 */
public enum FullReductionVariant {
    /** The first plan: 16 blocks per SM, a second launch over their partials. */
    TWO_PASS_16("two-pass/16", false, false, 16),
    /** One launch, 16 blocks per SM (several waves of blocks). */
    ONE_PASS_16("one-pass/16", true, false, 16),
    /** One launch, about as many blocks as are resident at once (one wave, no tail of a half-empty wave). */
    ONE_PASS_4("one-pass/4", true, false, 4),
    /** One launch, 8 loads in flight per thread, 4 blocks per SM. */
    ONE_PASS_8LOADS_4("one-pass-8loads/4", true, true, 4),
    /** One launch, 8 loads in flight per thread, 8 blocks per SM. */
    ONE_PASS_8LOADS_8("one-pass-8loads/8", true, true, 8);

    public final String label;
    public final boolean onePass, loads8;
    public final int blocksPerSm;

    FullReductionVariant(String label, boolean onePass, boolean loads8, int blocksPerSm) {
        this.label = label;
        this.onePass = onePass;
        this.loads8 = loads8;
        this.blocksPerSm = blocksPerSm;
    }

    /** The variant with this label ("one-pass/4") or enum name, case-insensitive. */
    public static FullReductionVariant byName(String name) {
        for (FullReductionVariant v : values()) {
            if (v.label.equalsIgnoreCase(name) || v.name().equalsIgnoreCase(name)) return v;
        }
        throw new IllegalArgumentException("no full-reduction variant '" + name + "': use one of "
                + Arrays.stream(values()).map(v -> v.label).toList());
    }

    @Override
    public String toString() {
        return label;
    }
}
