package org.mpi2nccl.cuda;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The working memory of the one-pass reductions (reduce_*_rows_last_f32, reduce_*_cols_last_f32) on one context:
 * a counter per row (or column tile), which must be 0 when a launch starts and which the kernel's last block sets
 * back to 0, and room for the parts' partial results (4 MiB: a column split of 8 chunks of 128K columns). Allocated and zeroed once per context on first use and kept, like the context and its cuBLAS
 * handle, for the life of the JVM: a per-call buffer would cost an allocation, a memset and host time before
 * every reduction. All of the context's work is queued on its one stream, so launches never share it at once.
 */
final class ReductionScratch {
    /** Rows or column tiles (counters) and partial results one launch can use; bigger plans take the two-pass route. */
    static final int MAX_ROWS = 4096;
    static final long MAX_PARTIALS = 1 << 20;

    private static final Map<CudaContext, ReductionScratch> BY_CONTEXT = new IdentityHashMap<>();

    private final DeviceMemory memory;

    private ReductionScratch(CudaContext context) {
        memory = DeviceMemory.allocateUnscoped(context, MAX_ROWS * 4L + MAX_PARTIALS * 4L);
        memory.zero();
    }

    static synchronized ReductionScratch of(CudaContext context) {
        return BY_CONTEXT.computeIfAbsent(context, ReductionScratch::new);
    }

    /** True when a one-pass launch over {@code outer} rows of {@code parts} parts fits. */
    static boolean fits(long outer, long parts) {
        return outer <= MAX_ROWS && outer * parts <= MAX_PARTIALS;
    }

    /** True when a one-pass column launch fits: a counter per (outer, column tile), chunks x inner partials per outer. */
    static boolean fitsColumns(long outer, long tiles, long chunks, long inner) {
        return chunks == 1 || (outer * tiles <= MAX_ROWS && outer * chunks * inner <= MAX_PARTIALS);
    }

    long counters() {
        return memory.address();
    }

    long partials() {
        return memory.address(MAX_ROWS * 4L);
    }
}
