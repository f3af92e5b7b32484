package org.mpi2nccl.cuda;

import static org.mpi2nccl.cuda.CudaBenchmarks.median;
import static org.mpi2nccl.cuda.CudaBenchmarks.timeHost;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.cuda.CudaBenchmarks.Result;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * One training step of the lesson CNN on one GPU (the train figures of {@code mpi2nccl bench-gpu}): samples per second with the
 * host waiting after each step, as the PyTorch peer does, and whether a step is launch-bound (the host's time to
 * queue a step beside the GPU's time to run it).
 */
public final class TrainStepBench {
    private TrainStepBench() {}

    /** Seconds of untimed training steps before the timed ones (as torch_peer.py's train step). */
    static final double TRAIN_WARMUP_SECONDS = 3.0;
    /** Fewest timed steps; the figure is their median. */
    static final int TRAIN_MIN_STEPS = 100;

    /**
     * Forward, loss, backward and SGD (momentum 0.9) of {@code Models.cnn(c1, c2)} on a fixed synthetic batch
     * already on the GPU, synchronized after each step (as the PyTorch peer does), one ArrayScope per step.
     */
    public static List<Result> trainStep(CudaBackend backend, int batch, int c1, int c2, int reps) {
        Device d = backend.device();
        Random r = new Random(0);
        float[] x = new float[batch * 28 * 28], labels = new float[batch];
        for (int i = 0; i < x.length; i++) x[i] = r.nextFloat();
        for (int i = 0; i < batch; i++) labels[i] = r.nextInt(10);
        List<Result> out = new ArrayList<>();
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
            // warm-up by time: the launch path of a step runs a few hundred times per step, and the JIT compiles it
            // fully only after thousands of calls (10 warm-up steps left the timed steps to the JIT: 43K vs 62K
            // samples/s in two rounds of one run)
            long warmEnd = System.nanoTime() + (long) (TRAIN_WARMUP_SECONDS * 1e9);
            int warm = 0;
            do {
                step.run();
                warm++;
            } while (System.nanoTime() < warmEnd || warm < 10);
            int steps = Math.max(reps, TRAIN_MIN_STEPS);
            double ms = timeHost(steps, step);
            out.add(new Result("train", "cnn train step batch " + batch + " (" + c1 + "," + c2 + ")", batch / (ms * 1e-3), "samples/s", ms,
                    String.format("toolkit nn/autograd on the CUDA backend, SGD momentum, synchronized per step; median of %d steps after %d warm-up steps (%.0f s)",
                            steps, warm, TRAIN_WARMUP_SECONDS)));
            out.addAll(queuedSteps(backend, queue, batch, c1, c2, reps));
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
    private static List<Result> queuedSteps(CudaBackend backend, Runnable queue, int batch, int c1, int c2, int reps) {
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
        return List.of(new Result("train", what + ": host time to queue", median(host) * 1e3, "us/step", median(host), note),
                new Result("train", what + ": GPU time", median(gpu) * 1e3, "us/step", median(gpu), note));
    }
}
