package org.mpi2nccl.bench.gpu;

import static org.mpi2nccl.bench.gpu.GpuTiming.median;
import static org.mpi2nccl.bench.gpu.GpuTiming.timeHost;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaContext;
import org.mpi2nccl.cuda.CudaEvent;
import org.mpi2nccl.nn.FusedBlocks;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * {@code bench-gpu --only train}: one training step of the lesson CNN on one GPU (lessons 03 and 05): samples per
 * second with the host waiting after each step, as the PyTorch peer does, run eagerly and replayed from a CUDA graph
 * ({@link GraphedTrainStep}), and whether the eager step is launch-bound (the host's time to queue a step beside the
 * GPU's time to run it). The step is the toolkit's own nn/autograd/optim code on the CUDA backend, exactly as
 * training runs it. Figure names: {@code cnn train step batch B (c1,c2)} for the eager step (the name the PyTorch
 * peer's eager step has) and the same with {@code graphed} after it; {@code unfused} before that when Sequential's
 * fused blocks are off (MPI2NCCL_FUSED_BLOCKS=0).
 */
public final class TrainStepBench {
    private TrainStepBench() {}

    /** Seconds of untimed training steps before the timed ones (as torch_peer.py's train step), by default. */
    public static final double TRAIN_WARMUP_SECONDS = 3.0;
    /** Fewest timed steps; the figure is their median. */
    static final int TRAIN_MIN_STEPS = 100;

    /**
     * Forward, loss, backward and SGD (momentum 0.9) of {@code Models.cnn(c1, c2)} on a fixed synthetic batch
     * already on the GPU, synchronized after each step (as the PyTorch peer does), one ArrayScope per step; eager
     * steps for {@code warmupSeconds} before the timed ones, then the same step graphed.
     */
    public static List<GpuFigure> trainStep(CudaBackend backend, int batch, int c1, int c2, int reps, double warmupSeconds) {
        return trainStep(backend, batch, c1, c2, reps, warmupSeconds, 0);
    }

    /**
     * As {@link #trainStep(CudaBackend, int, int, int, int, double)}; with {@code profiledSteps} above 0, the warm-up
     * and then, instead of any timing, that many eager steps as the one range a profiler started with profiling off
     * records ({@link CudaContext#profiled}), and no figures: scripts/gpu/train-sweep.sh runs it under Nsight Compute
     * for each kernel's time (a profiler slows every call, so nothing else is worth running under it).
     */
    public static List<GpuFigure> trainStep(CudaBackend backend, int batch, int c1, int c2, int reps, double warmupSeconds,
                                            int profiledSteps) {
        Device d = backend.device();
        Random r = new Random(0);
        float[] x = new float[batch * 28 * 28], labels = new float[batch];
        for (int i = 0; i < x.length; i++) x[i] = r.nextFloat();
        for (int i = 0; i < batch; i++) labels[i] = r.nextInt(10);
        List<GpuFigure> out = new ArrayList<>();
        try (Module net = Models.cnn(c1, c2, d, 0);
             SGD opt = new SGD(net.parameters(), 0.05f, 0.9f, 0f);
             NDArray xb = ArrayScope.outside(() -> NDArray.of(d, x, batch, 1, 28, 28));
             NDArray yb = ArrayScope.outside(() -> NDArray.of(d, labels, batch))) {
            SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
            Runnable queue = () -> {
                try (ArrayScope scope = ArrayScope.open()) {
                    opt.zeroGrad();
                    Tensor loss = lossFn.forward(net.forward(Tensor.constant(xb)), yb);
                    loss.backward();
                    opt.step();
                }
            };
            Runnable step = () -> {
                queue.run();
                backend.synchronize();
            };
            // warm-up by time: the launch path runs a few hundred times per step, and the JIT compiles it fully only
            // after thousands of calls (with 10 warm-up steps the timed steps would measure the JIT at work)
            int warm = GpuTiming.warmUpBlocking(step, warmupSeconds);
            if (profiledSteps > 0) {
                backend.context().profiled(() -> {
                    for (int i = 0; i < profiledSteps; i++) queue.run();
                });
                return out;
            }
            int steps = Math.max(reps, TRAIN_MIN_STEPS);
            double ms = timeHost(steps, step);
            // a run with the fused blocks off (MPI2NCCL_FUSED_BLOCKS=0) names its figures so, for the report to set beside
            String name = "cnn train step batch " + batch + " (" + c1 + "," + c2 + ")"
                    + (FusedBlocks.fusion() == FusedBlocks.Fusion.OFF ? " unfused" : "");
            out.add(new GpuFigure("train", name, batch / (ms * 1e-3), "samples/s", ms,
                    String.format("toolkit nn/autograd on the CUDA backend, SGD momentum, synchronized per step; median of %d steps after %d warm-up steps (%.1f s);"
                            + " fused blocks %s", steps, warm, warmupSeconds, FusedBlocks.fusion())));
            out.addAll(queuedSteps(backend, queue, batch, c1, c2, reps));
            try {
                double graphed = GraphedTrainStep.timeReplays(backend, queue, steps, warmupSeconds / 2);
                out.add(new GpuFigure("train", name + " graphed", batch / (graphed * 1e-3), "samples/s", graphed,
                        String.format("the same step recorded once as a CUDA graph, replayed and synchronized per step; median of %d"
                                + " replays after %.1f s of them", steps, warmupSeconds / 2)));
            } catch (RuntimeException e) {
                // the eager figures stand on their own: say why this one is missing and go on
                System.err.println("train: the graphed step at batch " + batch + " failed, no figure for it: " + e);
            }
        }
        return out;
    }

    /** Steps queued back to back per sample: few enough that the driver's launch queue never fills. */
    static final int QUEUED_STEPS = 8;

    /**
     * Is a step launch-bound? {@link #QUEUED_STEPS} steps queued without waiting: the host's time to queue one beside
     * the GPU's time per step (events around the queue). When the GPU waits for the host the two are equal; when
     * the GPU is the bottleneck its time is the larger, and the host could do more per step for free.
     */
    private static List<GpuFigure> queuedSteps(CudaBackend backend, Runnable queue, int batch, int c1, int c2, int reps) {
        CudaContext ctx = backend.context();
        int samples = Math.max(reps, 20);
        double[] host = new double[samples], gpu = new double[samples];
        try (CudaEvent start = new CudaEvent(ctx); CudaEvent end = new CudaEvent(ctx)) {
            for (int i = 0; i < samples; i++) {
                backend.synchronize();
                long t0 = System.nanoTime();
                start.record();
                for (int s = 0; s < QUEUED_STEPS; s++) queue.run();
                end.record();
                host[i] = (System.nanoTime() - t0) / 1e6 / QUEUED_STEPS;
                gpu[i] = CudaEvent.elapsedMillis(start, end) / QUEUED_STEPS;
            }
        }
        String what = "cnn step batch " + batch + " (" + c1 + "," + c2 + "), " + QUEUED_STEPS + " queued";
        String note = "median of " + samples + " samples of " + QUEUED_STEPS + " steps queued without waiting";
        return List.of(new GpuFigure("train", what + ": host time to queue", median(host) * 1e3, "us/step", median(host), note),
                new GpuFigure("train", what + ": GPU time", median(gpu) * 1e3, "us/step", median(gpu), note));
    }
}
