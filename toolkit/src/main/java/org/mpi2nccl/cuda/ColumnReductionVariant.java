package org.mpi2nccl.cuda;

import java.util.Arrays;

/**
 * How a reduction over columns ({@code inner > 1}, e.g. a bias gradient summed over the batch, or sum over axis 0)
 * is spread over the GPU. A block takes a tile of 128 columns (32 lanes x float4) and a chunk of the reduced rows;
 * the rows are cut into chunks until there are enough blocks. Then either a second launch combines the chunks'
 * partial results ({@code onePass == false}: reduce_*_cols_f32 twice, the first plan) or the last block of each
 * column tile to finish combines them in chunk order within the same launch (reduce_*_cols_last_f32: no second
 * launch, no buffer allocated per call). How many blocks:
 * <ul>
 *   <li>{@code blocksPerSm > 0}: chunks until there are that many blocks per SM (several waves of blocks);</li>
 *   <li>{@code blocksPerSm == 0} ("wave"): chunks so that the blocks fill whole waves of the blocks the GPU keeps
 *       resident at once for this kernel (its occupancy, asked of the driver), with no half-empty last wave.</li>
 * </ul>
 * {@code loads8}: 8 rows in flight per thread instead of 4 (sums only; MAX and MIN use the 4-row kernel).
 * Every variant gives the same result up to float rounding and is deterministic: the same input gives the same
 * bits on every run. The backend uses {@link KernelVariants#columnReduction()}.
 */
public enum ColumnReductionVariant {
    /** The first plan: 16 blocks per SM, a second launch over their partials. */
    TWO_PASS_16("two-pass/16", false, false, 16),
    /** The same split, finished in one launch by the last block of each tile. */
    ONE_PASS_16("one-pass/16", true, false, 16),
    /** One launch, whole waves of resident blocks, 4 rows in flight per thread. */
    ONE_PASS_WAVE("one-pass/wave", true, false, 0),
    /** One launch, whole waves of resident blocks, 8 rows in flight per thread. */
    ONE_PASS_8LOADS_WAVE("one-pass-8loads/wave", true, true, 0);

    public final String label;
    public final boolean onePass, loads8;
    /** Blocks per SM the split aims at; 0: whole waves of the kernel's resident blocks. */
    public final int blocksPerSm;

    ColumnReductionVariant(String label, boolean onePass, boolean loads8, int blocksPerSm) {
        this.label = label;
        this.onePass = onePass;
        this.loads8 = loads8;
        this.blocksPerSm = blocksPerSm;
    }

    /** The variant with this label ("one-pass/wave") or enum name, case-insensitive. */
    public static ColumnReductionVariant byName(String name) {
        for (ColumnReductionVariant v : values()) {
            if (v.label.equalsIgnoreCase(name) || v.name().equalsIgnoreCase(name)) return v;
        }
        throw new IllegalArgumentException("no column-reduction variant '" + name + "': use one of "
                + Arrays.stream(values()).map(v -> v.label).toList());
    }

    @Override
    public String toString() {
        return label;
    }
}
