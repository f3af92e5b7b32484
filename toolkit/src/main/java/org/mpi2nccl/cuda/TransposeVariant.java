package org.mpi2nccl.cuda;

import java.util.Arrays;
import java.util.Locale;

/**
 * The tile shapes of the tiled transpose (native/memory.cu copy_transpose_*), one kernel each. Which is fastest
 * depends on the GPU (how much of each DRAM page a tile touches, registers, shared memory per SM), so the
 * backend uses {@link KernelVariants#transpose()} and {@code mpi2nccl bench-gpu --only variants} times and
 * checks them all in one run. {@code tileP} is the tile's extent along the source's contiguous axis,
 * {@code tileQ} along the destination's.
 */
public enum TransposeVariant {
    /** The first kernel: 64 x 64, scalar loads and stores (16 per thread). */
    TILE_64X64("64x64", Kernel.COPY_TRANSPOSE_64X64, 64, 64),
    /** 64 x 64, full aligned tiles read and written as float4 (4 per thread). */
    TILE_64X64_V4("64x64-v4", Kernel.COPY_TRANSPOSE_64X64_V4, 64, 64),
    /** 128 along the source rows (512-byte reads), 64 along the destination rows, float4 (8 per thread). */
    TILE_128X64_V4("128x64-v4", Kernel.COPY_TRANSPOSE_128X64_V4, 128, 64),
    /** 64 along the source rows, 128 along the destination rows (512-byte writes), float4. */
    TILE_64X128_V4("64x128-v4", Kernel.COPY_TRANSPOSE_64X128_V4, 64, 128),
    /** The textbook 32 x 32 tile, scalar (4 per thread). */
    TILE_32X32("32x32", Kernel.COPY_TRANSPOSE_32X32, 32, 32);

    public final String label;
    final Kernel kernel;
    public final int tileP, tileQ;

    TransposeVariant(String label, Kernel kernel, int tileP, int tileQ) {
        this.label = label;
        this.kernel = kernel;
        this.tileP = tileP;
        this.tileQ = tileQ;
    }

    /** The variant with this label ("64x64-v4") or enum name, case-insensitive. */
    public static TransposeVariant byName(String name) {
        for (TransposeVariant v : values()) {
            if (v.label.equalsIgnoreCase(name) || v.name().equalsIgnoreCase(name)) return v;
        }
        throw new IllegalArgumentException("no transpose variant '" + name + "': use one of "
                + Arrays.stream(values()).map(v -> v.label).toList());
    }

    @Override
    public String toString() {
        return label.toLowerCase(Locale.ROOT);
    }
}
