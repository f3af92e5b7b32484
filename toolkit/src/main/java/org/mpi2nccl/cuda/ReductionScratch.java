package org.mpi2nccl.cuda;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The working memory of the one-pass row reductions (reduce_*_rows_last_f32) on one context: a counter per row,
 * which must be 0 when a launch starts and which the kernel's last block sets back to 0, and room for the parts'
 * partial results. Allocated and zeroed once per context on first use and kept, like the context and its cuBLAS
 * handle, for the life of the JVM: a per-call buffer would cost an allocation, a memset and host time before
 * every reduction. All of the context's work is queued on its one stream, so launches never share it at once.
 */
final class ReductionScratch {
    /** Rows (counters) and partial results one launch can use; bigger plans take the two-pass route. */
    static final int MAX_ROWS = 1024;
    static final long MAX_PARTIALS = 1 << 16;

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

    long counters() {
        return memory.address();
    }

    long partials() {
        return memory.address(MAX_ROWS * 4L);
    }
}
