package org.mpi2nccl.parallel.gpu;

/**
 * Settings of {@link GpuDataParallel}: what it adds to the plain step on GPUs. Every rank must make the same choices
 * (with CUDA graphs and NCCL they change which NCCL calls are made, and when).
 *
 * @param cudaGraphs       on a GPU, record a step's forward, backward and optimizer kernels once as CUDA graphs and
 *                         replay them: a handful of launches per step instead of dozens of kernel launches and cuBLAS
 *                         calls, so the GPU no longer waits for the host (see {@link StepGraphs}). Off by default.
 * @param graphCollectives with {@code cudaGraphs} and NCCL on a stream of its own: the gradient all-reduces are
 *                         recorded into the graphs too (NCCL's calls can be), so the host launches four graphs per step
 *                         and nothing else, and the GPU goes from backward to the all-reduces without waiting for a
 *                         graph launch between them. False: they stay NCCL calls made by the host between the pieces of
 *                         backward. Default on.
 * @param lastBucketBytes  the model's first parameters, up to this many bytes, get the last bucket to themselves
 *                         (backward finishes them last, so nothing hides their all-reduce: a small one is a short wait
 *                         before the optimizer). 0 (default): the last bucket is filled like the others. Measured with
 *                         the speedup experiment ({@code mpi2nccl run --last-bucket-kib}) on 2 GPUs with the lesson
 *                         CNN: no faster, as NCCL's all-reduce of the default 74 KB last bucket is latency already.
 * @param overlapCtas      NCCL only, with overlap: the buckets all-reduced while backward still runs go through a
 *                         second communicator ({@code ncclCommSplit}) limited to this many CTAs (thread blocks, each
 *                         holding an SM), so that NCCL takes fewer SMs from backward; the buckets after backward keep
 *                         the full communicator. 0 (default): one communicator, NCCL's choice.
 */
public record GpuOptions(boolean cudaGraphs, boolean graphCollectives, long lastBucketBytes, int overlapCtas) {

    public GpuOptions {
        if (lastBucketBytes < 0) {
            throw new IllegalArgumentException("last bucket size must be >= 0 bytes (0: filled like the others), got " + lastBucketBytes);
        }
        if (overlapCtas < 0) {
            throw new IllegalArgumentException("CTAs for the overlapped all-reduces must be >= 0 (0: NCCL's choice), got " + overlapCtas);
        }
    }

    public static GpuOptions defaults() {
        return new GpuOptions(false, true, 0, 0);
    }

    public GpuOptions cudaGraphs(boolean on) {
        return new GpuOptions(on, graphCollectives, lastBucketBytes, overlapCtas);
    }

    public GpuOptions graphCollectives(boolean on) {
        return new GpuOptions(cudaGraphs, on, lastBucketBytes, overlapCtas);
    }

    public GpuOptions lastBucketBytes(long bytes) {
        return new GpuOptions(cudaGraphs, graphCollectives, bytes, overlapCtas);
    }

    public GpuOptions overlapCtas(int ctas) {
        return new GpuOptions(cudaGraphs, graphCollectives, lastBucketBytes, ctas);
    }
}
