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
 */
public record DataParallelOptions(long bucketBytes, boolean overlap, boolean commOnComputeStream, boolean cudaGraphs,
                                  boolean graphCollectives) {

    public static final long DEFAULT_BUCKET_BYTES = 1L << 20;

    public DataParallelOptions {
        if (bucketBytes < 4) {
            throw new IllegalArgumentException("bucket size must be at least 4 bytes (one float), got " + bucketBytes);
        }
    }

    public static DataParallelOptions defaults() {
        return new DataParallelOptions(DEFAULT_BUCKET_BYTES, true, false, false, true);
    }

    public DataParallelOptions bucketBytes(long bytes) {
        return new DataParallelOptions(bytes, overlap, commOnComputeStream, cudaGraphs, graphCollectives);
    }

    public DataParallelOptions overlap(boolean on) {
        return new DataParallelOptions(bucketBytes, on, commOnComputeStream, cudaGraphs, graphCollectives);
    }

    public DataParallelOptions commOnComputeStream(boolean on) {
        return new DataParallelOptions(bucketBytes, overlap, on, cudaGraphs, graphCollectives);
    }

    public DataParallelOptions cudaGraphs(boolean on) {
        return new DataParallelOptions(bucketBytes, overlap, commOnComputeStream, on, graphCollectives);
    }

    public DataParallelOptions graphCollectives(boolean on) {
        return new DataParallelOptions(bucketBytes, overlap, commOnComputeStream, cudaGraphs, on);
    }
}
