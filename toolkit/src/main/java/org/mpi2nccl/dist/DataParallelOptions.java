package org.mpi2nccl.dist;

/**
 * Settings of {@link DataParallel}.
 *
 * @param bucketBytes          gradients are packed into flat buckets of at most this many bytes, one all-reduce
 *                             per bucket (a tensor larger than this gets a bucket of its own). Fewer, larger
 *                             buckets pay the per-call latency less often; smaller ones start reducing earlier
 *                             when overlapping. Default 1 MiB.
 * @param overlap              start all-reducing a bucket as soon as backward has finished all its gradients,
 *                             while backward goes on with the rest (on a separate host thread for collectives
 *                             that block the caller, such as MPI; NCCL queues them on the GPU stream anyway).
 *                             Default on.
 * @param commOnComputeStream  the communicator queues its work on the model backend's own CUDA stream (an
 *                             NCCL communicator created with that stream): then nothing has to wait for the
 *                             GPU before a collective, but the all-reduce also holds up the kernels queued
 *                             after it. False (default): an NCCL communicator with a stream of its own is
 *                             ordered with the model's stream by events (backward goes on beside the
 *                             all-reduce, the host never waits, as in PyTorch DDP); any other communicator gets
 *                             the GPU synchronised before each collective (what the MPI route needs anyway for
 *                             its device-to-host copy).
 * @param cudaGraphs           on a GPU, record a step's forward, backward and optimizer kernels once as CUDA graphs
 *                             and replay them: three launches per step instead of dozens of kernel launches and
 *                             cuBLAS calls, so the GPU no longer waits for the host (see {@link StepGraphs}). Off by
 *                             default.
 * @param graphCollectives     with {@code cudaGraphs} and NCCL on a stream of its own: the gradient all-reduces are
 *                             recorded into the graphs too (NCCL's calls can be), so the host launches four graphs
 *                             per step and nothing else, and the GPU goes from backward to the all-reduces without
 *                             waiting for a graph launch between them. False: they stay NCCL calls made by the host
 *                             between the pieces of backward. Default on. Every rank must make the same choice.
 * @param lastBucketBytes      the model's first parameters, up to this many bytes, get the last bucket to themselves
 *                             (backward finishes them last, so nothing hides their all-reduce: a small one is a short
 *                             wait before the optimizer). 0 (default): the last bucket is filled like the others.
 *                             Measured on 2x H200 with the lesson CNN: no faster, as NCCL's all-reduce of the 74 KB
 *                             last bucket is latency already (1.4 KB took under 1 us less).
 *                             With CUDA graphs and NCCL both settings change the recorded calls: every rank must
 *                             make the same choice (as for {@code graphCollectives}).
 * @param overlapCtas          NCCL only, with overlap: the buckets all-reduced while backward still runs go through a
 *                             second communicator ({@code ncclCommSplit}) limited to this many CTAs (thread blocks,
 *                             each holding an SM), so that NCCL takes fewer SMs from backward; the buckets after
 *                             backward keep the full communicator. 0 (default): one communicator, NCCL's choice.
 */
public record DataParallelOptions(long bucketBytes, boolean overlap, boolean commOnComputeStream, boolean cudaGraphs,
                                  boolean graphCollectives, long lastBucketBytes, int overlapCtas) {

    public static final long DEFAULT_BUCKET_BYTES = 1L << 20;

    public DataParallelOptions {
        if (bucketBytes < 4) {
            throw new IllegalArgumentException("bucket size must be at least 4 bytes (one float), got " + bucketBytes);
        }
        if (lastBucketBytes < 0) {
            throw new IllegalArgumentException("last bucket size must be >= 0 bytes (0: filled like the others), got " + lastBucketBytes);
        }
        if (overlapCtas < 0) {
            throw new IllegalArgumentException("CTAs for the overlapped all-reduces must be >= 0 (0: NCCL's choice), got " + overlapCtas);
        }
    }

    public static DataParallelOptions defaults() {
        return new DataParallelOptions(DEFAULT_BUCKET_BYTES, true, false, false, true, 0, 0);
    }

    public DataParallelOptions bucketBytes(long bytes) {
        return new DataParallelOptions(bytes, overlap, commOnComputeStream, cudaGraphs, graphCollectives, lastBucketBytes, overlapCtas);
    }

    public DataParallelOptions overlap(boolean on) {
        return new DataParallelOptions(bucketBytes, on, commOnComputeStream, cudaGraphs, graphCollectives, lastBucketBytes, overlapCtas);
    }

    public DataParallelOptions commOnComputeStream(boolean on) {
        return new DataParallelOptions(bucketBytes, overlap, on, cudaGraphs, graphCollectives, lastBucketBytes, overlapCtas);
    }

    public DataParallelOptions cudaGraphs(boolean on) {
        return new DataParallelOptions(bucketBytes, overlap, commOnComputeStream, on, graphCollectives, lastBucketBytes, overlapCtas);
    }

    public DataParallelOptions graphCollectives(boolean on) {
        return new DataParallelOptions(bucketBytes, overlap, commOnComputeStream, cudaGraphs, on, lastBucketBytes, overlapCtas);
    }

    public DataParallelOptions lastBucketBytes(long bytes) {
        return new DataParallelOptions(bucketBytes, overlap, commOnComputeStream, cudaGraphs, graphCollectives, bytes, overlapCtas);
    }

    public DataParallelOptions overlapCtas(int ctas) {
        return new DataParallelOptions(bucketBytes, overlap, commOnComputeStream, cudaGraphs, graphCollectives, lastBucketBytes, ctas);
    }
}
