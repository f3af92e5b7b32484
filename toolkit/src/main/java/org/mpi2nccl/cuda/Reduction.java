package org.mpi2nccl.cuda;

import org.mpi2nccl.tensor.ReduceOp;

/**
 * Plans a SUM/MAX/MIN over the middle axis of a compact (outer, reduced, inner) array onto the kernels of
 * native/reduce.cu, and launches it.
 * <ul>
 *   <li>{@code inner == 1} (rows): one warp per row when rows are short and many, else a block per row. When
 *       there are too few rows to fill the GPU (a full sum is one row), each row is shared by {@code parts}
 *       blocks, whose partial results a second pass reduces.</li>
 *   <li>{@code inner > 1} (columns): a block per tile of 128 columns (32 when they cannot be read as float4)
 *       and a chunk of the reduced axis; with few tiles the axis is cut into {@code chunks} chunks, combined
 *       by a second pass or, as {@link KernelVariants#columnReduction()} says, by the last block of each tile in
 *       the same launch ({@link #planColumns}).</li>
 * </ul>
 * Enough blocks for the GPU is {@value #BLOCKS_PER_SM_TARGET} per SM: with several float4 loads in flight per
 * thread that covers the memory latency, and it leaves a small tail when the last blocks run alone. Rows shared
 * by several blocks follow {@link KernelVariants#fullReduction()}: its blocks per SM, and either the second pass
 * or one launch whose last block per row combines the partials (reduce_*_rows_last_f32).
 * Deterministic: the split depends only on the shape, the input's alignment, the variant and the GPU's SM
 * count, and partials are always combined in index order.
 */
final class Reduction {
    private Reduction() {}

    /** Blocks per SM a reduction should offer before its axis is split. */
    static final int BLOCKS_PER_SM_TARGET = 16;
    /** Fewest elements in one block's part of a row (256 threads x 4 float4 loads). */
    static final long MIN_ROW_PART = 4096;
    /** Fewest rows in one chunk of a column reduction (8 warps x 8 rows). */
    static final long MIN_CHUNK_ROWS = 64;
    /** Rows up to this length are reduced one warp per row... */
    static final long WARP_ROW_MAX = 4096;
    /** ...when they are at most this long, or there are at least this many rows per SM. */
    static final long WARP_ROW_SHORT = 256;
    static final int WARP_ROWS_PER_SM = 8;
    /** Columns a block takes: 32 lanes x 4 (float4) or x 1. */
    static final long COLUMN_TILE_VECTOR = 128, COLUMN_TILE_SCALAR = 32;

    /** How a reduction runs: which kernel, and into how many parts (rows) or chunks (columns) the axis is cut. */
    enum Shape { ROWS_WARP, ROWS_BLOCK, COLUMNS }

    /**
     * One launch: {@code split} parts of a row, or chunks of {@code chunk} rows of a column; split > 1 means
     * its output is [outer, split, inner] partials for a second pass. {@code items} is the launch's work count.
     */
    record Pass(Shape shape, long split, long chunk, long items) {}

    static void run(CudaContext context, ReduceOp op, long in, long out, long outer, long reduced, long inner) {
        run(context, op, in, out, outer, reduced, inner, KernelVariants.fullReduction());
    }

    /** As {@link #run}, rows shared by several blocks reduced the way {@code rows} says. */
    static void run(CudaContext context, ReduceOp op, long in, long out, long outer, long reduced, long inner,
                    FullReductionVariant rows) {
        int sms = context.device.multiprocessors;
        if (inner > 1 && reduced > 1 && KernelVariants.columnReduction().onePass && columnsOnePass(context, op, in, out, outer, reduced, inner)) {
            return;
        }
        Pass pass = plan(outer, reduced, inner, sms, columnsAsFloat4(in, inner), rows.blocksPerSm);
        if (rows.onePass && pass.shape() == Shape.ROWS_BLOCK && pass.split() > 1 && ReductionScratch.fits(outer, pass.split())) {
            ReductionScratch scratch = ReductionScratch.of(context);
            Kernel k = op == ReduceOp.SUM && rows.loads8 ? Kernel.REDUCE_SUM_ROWS_LAST8
                    : kernel(op, Kernel.REDUCE_SUM_ROWS_LAST, Kernel.REDUCE_MAX_ROWS_LAST, Kernel.REDUCE_MIN_ROWS_LAST);
            context.launch(k, pass.items(), KernelArgs.of().ptr(in).ptr(out).i64(outer).i64(reduced).i64(pass.split())
                    .ptr(scratch.partials()).ptr(scratch.counters()));
            return;
        }
        if (pass.split() <= 1) {
            launch(context, op, pass, in, out, outer, reduced, inner);
            return;
        }
        try (DeviceMemory partial = DeviceMemory.allocateUnscoped(context, outer * pass.split() * inner * 4)) {
            launch(context, op, pass, in, partial.address(), outer, reduced, inner);
            run(context, op, partial.address(), out, outer, pass.split(), inner, rows);
        }   // freed in stream order: after the second pass has read it
    }

    /**
     * Columns in one launch (reduce_*_cols_last_f32) as the {@link KernelVariants#columnReduction()} variant plans
     * them; false (nothing launched) when its partials do not fit the per-context scratch: then the two-pass route.
     */
    private static boolean columnsOnePass(CudaContext context, ReduceOp op, long in, long out, long outer, long reduced, long inner) {
        ColumnReductionVariant v = KernelVariants.columnReduction();
        Kernel k = op == ReduceOp.SUM && v.loads8 ? Kernel.REDUCE_SUM_COLS_LAST8
                : kernel(op, Kernel.REDUCE_SUM_COLS_LAST, Kernel.REDUCE_MAX_COLS_LAST, Kernel.REDUCE_MIN_COLS_LAST);
        boolean float4 = columnsAsFloat4(in, inner);
        int resident = v.blocksPerSm == 0 ? context.residentBlocksPerSm(k) : 0;
        Pass pass = planColumns(outer, reduced, inner, context.device.multiprocessors, float4, v.blocksPerSm, resident);
        long tiles = outer * ((inner + columnWidth(float4) - 1) / columnWidth(float4));
        if (!ReductionScratch.fitsColumns(outer, tiles, pass.split(), inner)) return false;
        ReductionScratch scratch = ReductionScratch.of(context);
        context.launch(k, pass.items(), KernelArgs.of().ptr(in).ptr(out).i64(outer).i64(reduced).i64(inner).i64(pass.chunk())
                .i64(pass.split()).ptr(scratch.partials()).ptr(scratch.counters()));
        return true;
    }

    static long columnWidth(boolean float4Columns) {
        return float4Columns ? COLUMN_TILE_VECTOR : COLUMN_TILE_SCALAR;
    }

    /** Smallest share of a wave's block slots the "whole waves" column plan accepts before it tries more chunks. */
    static final double WAVE_FILL = 0.95;
    static final int WAVES_WORTH_FILLING = 4;

    /**
     * The column split: tiles of {@link #columnWidth} columns per outer index, the reduced axis cut into chunks of at
     * least {@value #MIN_CHUNK_ROWS} rows.
     * {@code blocksPerSm > 0}: chunks until there are that many blocks per SM. {@code blocksPerSm == 0}: the fewest
     * chunks whose blocks fill whole waves of {@code residentPerSm} x SMs blocks to at least {@value #WAVE_FILL}
     * (else the best fill found); no split when the tiles alone make {@value #WAVES_WORTH_FILLING} waves or more
     * (a half-empty last wave then costs little).
     */
    static Pass planColumns(long outer, long reduced, long inner, int sms, boolean float4Columns, int blocksPerSm, int residentPerSm) {
        long width = columnWidth(float4Columns);
        long tiles = outer * ((inner + width - 1) / width);
        long chunks = 1;
        long maxChunks = reduced / MIN_CHUNK_ROWS;
        if (blocksPerSm > 0) {
            long target = (long) Math.max(1, sms) * blocksPerSm;
            if (tiles < target && reduced >= 2 * MIN_CHUNK_ROWS) chunks = Math.min((target + tiles - 1) / tiles, maxChunks);
        } else {
            long slots = (long) Math.max(1, sms) * Math.max(1, residentPerSm);
            if (tiles < WAVES_WORTH_FILLING * slots && maxChunks >= 2) {
                double bestFill = -1;
                for (long c = 1; c <= maxChunks && c <= 8 * ((slots + tiles - 1) / tiles); c++) {
                    long items = tiles * c;
                    double fill = (double) items / (((items + slots - 1) / slots) * slots);
                    if (fill > bestFill + 1e-9) {
                        bestFill = fill;
                        chunks = c;
                    }
                    if (fill >= WAVE_FILL) break;
                }
            }
        }
        chunks = Math.max(1, chunks);
        long chunk = (reduced + chunks - 1) / chunks;
        chunks = (reduced + chunk - 1) / chunk;          // no empty chunk at the end
        return new Pass(Shape.COLUMNS, chunks, chunk, tiles * chunks);
    }

    /** The column kernel reads float4 when whole rows of 4 columns are 16-byte aligned (as it checks itself). */
    static boolean columnsAsFloat4(long inAddress, long inner) {
        return inner % 4 == 0 && inAddress % 16 == 0;
    }

    static Pass plan(long outer, long reduced, long inner, int sms, boolean float4Columns) {
        return plan(outer, reduced, inner, sms, float4Columns, BLOCKS_PER_SM_TARGET);
    }

    /** As above, a row split into parts until there are {@code rowBlocksPerSm} blocks per SM. */
    static Pass plan(long outer, long reduced, long inner, int sms, boolean float4Columns, int rowBlocksPerSm) {
        if (inner == 1) {
            long target = (long) Math.max(1, sms) * Math.max(1, rowBlocksPerSm);
            long parts = 1;
            if (outer < target && reduced >= 2 * MIN_ROW_PART) {
                parts = Math.min((target + outer - 1) / outer, reduced / MIN_ROW_PART);
            }
            if (parts == 1 && reduced <= WARP_ROW_MAX
                    && (reduced <= WARP_ROW_SHORT || outer >= (long) Math.max(1, sms) * WARP_ROWS_PER_SM)) {
                return new Pass(Shape.ROWS_WARP, 1, reduced, outer);
            }
            return new Pass(Shape.ROWS_BLOCK, parts, (reduced + parts - 1) / parts, outer * parts);
        }
        return planColumns(outer, reduced, inner, sms, float4Columns, BLOCKS_PER_SM_TARGET, 0);
    }

    private static void launch(CudaContext context, ReduceOp op, Pass pass, long in, long out, long outer, long reduced,
                               long inner) {
        switch (pass.shape()) {
            case ROWS_WARP -> context.launch(kernel(op, Kernel.REDUCE_SUM_ROWS_WARP, Kernel.REDUCE_MAX_ROWS_WARP, Kernel.REDUCE_MIN_ROWS_WARP),
                    pass.items(), KernelArgs.of().ptr(in).ptr(out).i64(outer).i64(reduced));
            case ROWS_BLOCK -> context.launch(kernel(op, Kernel.REDUCE_SUM_ROWS, Kernel.REDUCE_MAX_ROWS, Kernel.REDUCE_MIN_ROWS),
                    pass.items(), KernelArgs.of().ptr(in).ptr(out).i64(outer).i64(reduced).i64(pass.split()));
            case COLUMNS -> context.launch(kernel(op, Kernel.REDUCE_SUM_COLS, Kernel.REDUCE_MAX_COLS, Kernel.REDUCE_MIN_COLS),
                    pass.items(), KernelArgs.of().ptr(in).ptr(out).i64(outer).i64(reduced).i64(inner).i64(pass.chunk()).i64(pass.split()));
        }
    }

    private static Kernel kernel(ReduceOp op, Kernel sum, Kernel max, Kernel min) {
        return switch (op) {
            case SUM -> sum;
            case MAX -> max;
            case MIN -> min;
            case ARGMAX -> throw new IllegalArgumentException("ARGMAX is not a chunked reduction");
        };
    }
}
