package org.mpi2nccl.bench.gpu;

import static org.mpi2nccl.bench.gpu.GpuTiming.timeHost;

import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaGraph;
import org.mpi2nccl.cuda.GraphRecording;

/**
 * The training step of {@link TrainStepBench} recorded once as a CUDA graph and replayed, as PyTorch's whole-step
 * CUDA graph does: a replay is one launch, so the host's time to queue a step's few hundred kernels drops out and the
 * figure is the GPU's own. The data-parallel path replays its steps the same way ({@code GpuOptions.cudaGraphs}).
 *
 * <p>The step must have run eagerly before (its gradients and the optimizer's state exist, so the recording only
 * writes into them), and its inputs must stay where they are: each replay reads the same batch and learning rate.
 */
final class GraphedTrainStep {
    private GraphedTrainStep() {}

    /**
     * Median wall-clock milliseconds of {@code steps} replays of {@code queue}'s recording, each followed by a
     * synchronize (as the eager figure), after replays for {@code warmupSeconds}.
     */
    static double timeReplays(CudaBackend backend, Runnable queue, int steps, double warmupSeconds) {
        backend.synchronize();
        GraphRecording recording = backend.recording();
        CudaGraph graph;
        try {
            queue.run();
            graph = recording.finish();
        } catch (RuntimeException e) {
            throw recording.abort(e);
        }
        try {
            Runnable replay = () -> {
                graph.launch();
                backend.synchronize();
            };
            GpuTiming.warmUpBlocking(replay, warmupSeconds);
            return timeHost(steps, replay);
        } finally {
            recording.close();     // closes the graph too, after its last replay
        }
    }
}
