package org.mpi2nccl.cuda;

import org.mpi2nccl.tensor.ReduceOp;

/**
 * Plans a SUM/MAX/MIN over the middle axis of a compact (outer, reduced, inner) array onto the kernels of
 * native/reduce.cu. When there are few outputs and a long axis (a full sum, a column sum over a large batch),
 * the axis is cut into chunks reduced in parallel into a small partial array, which a second launch reduces:
 * a single block per output would leave most of the GPU idle. Deterministic (no atomics).
 */
final class Reduction {
    private Reduction() {}

    /** Threads per SM a launch should offer to keep the memory system busy (a full SM holds 2048). */
    static final int THREADS_PER_SM_TARGET = 2048;
    /** Fewest elements one block's chunk of a row should reduce, so the partial pass stays small. */
    static final long MIN_CHUNK = 2048;
    /** Fewest elements one thread's chunk of a column should reduce. */
    static final long MIN_CHUNK_COLUMNS = 64;
    /** Rows up to this length are reduced one warp per row (no block-wide barriers) when there are enough rows. */
    static final long WARP_ROW_MAX = 4096;

    static void run(CudaContext context, ReduceOp op, long in, long out, long outer, long reduced, long inner) {
        int sms = context.device.multiprocessors;
        long chunks = chunks(outer, reduced, inner, sms);
        if (chunks <= 1) {
            launch(context, op, in, out, outer, reduced, inner, reduced, 1);
            return;
        }
        long chunk = (reduced + chunks - 1) / chunks;
        if (inner == 1) chunk = (chunk + 3) / 4 * 4;      // row chunks start 16-byte aligned: float4 loads
        chunks = (reduced + chunk - 1) / chunk;
        try (DeviceMemory partial = DeviceMemory.allocateUnscoped(context, outer * chunks * inner * 4)) {
            launch(context, op, in, partial.address(), outer, reduced, inner, chunk, chunks);
            launch(context, op, partial.address(), out, outer, chunks, inner, chunks, 1);
        }   // freed in stream order: after the second launch has read it
    }

    /** How many pieces to cut the reduced axis into (1 = a single pass). */
    static long chunks(long outer, long reduced, long inner, int sms) {
        long outputs = outer * inner;
        // inner == 1: one block (256 threads) per output row; otherwise one thread per output
        long parallel = inner == 1 ? outputs * Kernel.BLOCK_THREADS : outputs;
        long target = (long) Math.max(1, sms) * THREADS_PER_SM_TARGET;
        long minChunk = inner == 1 ? MIN_CHUNK : MIN_CHUNK_COLUMNS;
        if (parallel >= target || reduced < 2 * minChunk) return 1;
        long wanted = (target + parallel - 1) / parallel;
        return Math.max(1, Math.min(wanted, reduced / minChunk));
    }

    private static void launch(CudaContext context, ReduceOp op, long in, long out, long outer, long reduced, long inner,
                               long chunk, long chunks) {
        if (inner == 1 && chunks == 1 && reduced <= WARP_ROW_MAX) {
            Kernel k = switch (op) {
                case SUM -> Kernel.REDUCE_SUM_ROWS_WARP;
                case MAX -> Kernel.REDUCE_MAX_ROWS_WARP;
                case MIN -> Kernel.REDUCE_MIN_ROWS_WARP;
                case ARGMAX -> throw new IllegalArgumentException("ARGMAX is not a chunked reduction");
            };
            context.launch(k, outer, KernelArgs.of().ptr(in).ptr(out).i64(outer).i64(reduced));
        } else if (inner == 1) {
            Kernel k = switch (op) {
                case SUM -> Kernel.REDUCE_SUM_ROWS;
                case MAX -> Kernel.REDUCE_MAX_ROWS;
                case MIN -> Kernel.REDUCE_MIN_ROWS;
                case ARGMAX -> throw new IllegalArgumentException("ARGMAX is not a chunked reduction");
            };
            context.launch(k, outer * chunks, KernelArgs.of().ptr(in).ptr(out).i64(outer).i64(reduced).i64(chunk).i64(chunks));
        } else {
            Kernel k = switch (op) {
                case SUM -> Kernel.REDUCE_SUM_COLS;
                case MAX -> Kernel.REDUCE_MAX_COLS;
                case MIN -> Kernel.REDUCE_MIN_COLS;
                case ARGMAX -> throw new IllegalArgumentException("ARGMAX is not a chunked reduction");
            };
            context.launch(k, outer * chunks * inner,
                    KernelArgs.of().ptr(in).ptr(out).i64(outer).i64(reduced).i64(inner).i64(chunk).i64(chunks));
        }
    }
}
