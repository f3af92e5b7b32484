package org.mpi2nccl.cuda;

import org.mpi2nccl.tensor.ReduceOp;
import org.mpi2nccl.tensor.Storage;

/**
 * Plans a SUM/MAX/MIN over the middle axis of a compact (outer, reduced, inner) array onto the kernels of
 * native/reduce.cu, and launches it ({@link CudaBackend#reduce}).
 * <ul>
 *   <li>{@code inner == 1} (rows): one warp per row when rows are short and many, else a block per row. When
 *       there are too few rows to fill the GPU (a full sum is one row), each row is shared by {@code parts}
 *       blocks ({@value #SPLIT_ROW_BLOCKS_PER_SM} per SM in all: about one wave of resident blocks), and the last
 *       block of each row to finish combines the parts' results in the same launch (reduce_*_rows_last_f32).</li>
 *   <li>{@code inner > 1} (columns): a block per tile of 128 columns (32 when they cannot be read as float4)
 *       and a chunk of the reduced axis; with few tiles the axis is cut into chunks so that the blocks fill whole
 *       waves of the blocks the GPU keeps resident at once ({@link #planColumns}), and the last block of each tile
 *       combines the chunks in the same launch (reduce_*_cols_last_f32).</li>
 * </ul>
 * Where the one-launch form's partial results do not fit the per-context scratch ({@link ReductionScratch}), the
 * split is finished by a second launch over the partials instead, with {@value #BLOCKS_PER_SM_TARGET} blocks per
 * SM: with several float4 loads in flight per thread that covers the memory latency.
 * Deterministic: the split depends only on the shape, the input's alignment and the GPU's SM count and
 * occupancy, and partials are always combined in index order.
 */
final class CudaReductions {
    private CudaReductions() {}

    /** Blocks per SM a reduction finished by a second launch should offer before its axis is split. */
    static final int BLOCKS_PER_SM_TARGET = 16;
    /** Blocks per SM of a row shared by several blocks and finished in one launch. */
    static final int SPLIT_ROW_BLOCKS_PER_SM = 4;
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

    /** The contract's reduce: shape and storage checks, ARGMAX (one thread per output), else {@link #run}. */
    static void reduce(CudaBackend backend, ReduceOp op, Storage a, Storage out, long outer, long reduced, long inner) {
        if (reduced < 1) throw new IllegalArgumentException("reduce: reduced axis must have >= 1 element, got " + reduced);
        if (outer < 0 || inner < 0) throw new IllegalArgumentException("reduce: negative shape (" + outer + ", " + reduced + ", " + inner + ")");
        long pa = backend.address(a, "reduce"), po = backend.address(out, "reduce");
        CudaBackend.checkRange("reduce", a, 0, outer * reduced * inner);
        CudaBackend.checkRange("reduce", out, 0, outer * inner);
        if (outer * inner == 0) return;
        CudaContext context = backend.context();
        if (op == ReduceOp.ARGMAX) {
            context.launch(Kernel.ARGMAX, outer * inner, KernelArgs.of().ptr(pa).ptr(po).i64(outer).i64(reduced).i64(inner));
            return;
        }
        run(context, op, pa, po, outer, reduced, inner);
    }

    static void run(CudaContext context, ReduceOp op, long in, long out, long outer, long reduced, long inner) {
        int sms = context.device.multiprocessors;
        if (inner > 1 && reduced > 1 && columnsOnePass(context, op, in, out, outer, reduced, inner)) {
            return;
        }
        Pass pass = plan(outer, reduced, inner, sms, columnsAsFloat4(in, inner), SPLIT_ROW_BLOCKS_PER_SM);
        if (pass.shape() == Shape.ROWS_BLOCK && pass.split() > 1 && ReductionScratch.fits(outer, pass.split())) {
            ReductionScratch scratch = ReductionScratch.of(context);
            Kernel k = kernel(op, Kernel.REDUCE_SUM_ROWS_LAST, Kernel.REDUCE_MAX_ROWS_LAST, Kernel.REDUCE_MIN_ROWS_LAST);
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
            run(context, op, partial.address(), out, outer, pass.split(), inner);
        }   // freed in stream order: after the second pass has read it
    }

    /**
     * Columns in one launch (reduce_*_cols_last_f32), split into whole waves of the kernel's resident blocks;
     * false (nothing launched) when its partials do not fit the per-context scratch: then the two-pass route.
     */
    private static boolean columnsOnePass(CudaContext context, ReduceOp op, long in, long out, long outer, long reduced, long inner) {
        Kernel k = kernel(op, Kernel.REDUCE_SUM_COLS_LAST, Kernel.REDUCE_MAX_COLS_LAST, Kernel.REDUCE_MIN_COLS_LAST);
        boolean float4 = columnsAsFloat4(in, inner);
        Pass pass = planColumns(outer, reduced, inner, context.device.multiprocessors, float4, 0, context.residentBlocksPerSm(k));
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
