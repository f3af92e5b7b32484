package org.mpi2nccl.nn;

import java.util.function.IntConsumer;
import org.mpi2nccl.autograd.GradMode;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Shapes;

/**
 * The single-device training loop of the lessons: forward, loss, backward, optimizer step, one
 * {@link ArrayScope} per step. Loss and correct-prediction counts are summed on the device and read once per
 * epoch, so a GPU is not synchronised every step.
 */
public final class Training {
    private Training() {}

    /** What one pass over a loader measured. */
    public record EpochResult(double meanLoss, double accuracy, long samples, double seconds) {
        public double samplesPerSecond() { return samples / seconds; }
    }

    /** One training epoch. {@code onBatch} (may be null) is told the batch number after each step. */
    public static EpochResult trainEpoch(Module model, DataLoader loader, int epoch, Optimizer optimizer,
                                         SoftmaxCrossEntropyLoss lossFn, IntConsumer onBatch) {
        model.train();
        long start = System.nanoTime();
        Device device = model.parameters().get(0).device();
        long samples = 0;
        int b = 0;
        try (NDArray sums = ArrayScope.outside(() -> NDArray.zeros(device, 2))) {
            for (Batch batch : loader.epoch(epoch)) {
                try (ArrayScope step = ArrayScope.open(); batch) {
                    optimizer.zeroGrad();
                    Tensor logits = model.forward(Tensor.constant(batch.x()));
                    Tensor loss = lossFn.forward(logits, batch.y());
                    loss.backward();
                    optimizer.step();
                    addBatchMetrics(sums, logits, loss, batch.y());
                    samples += batch.size();
                }
                if (onBatch != null) onBatch.accept(++b);
            }
            float[] s = sums.toArray();         // waits for the GPU: the epoch's time includes all its work
            double seconds = (System.nanoTime() - start) / 1e9;
            return new EpochResult(s[0] / samples, s[1] / samples, samples, seconds);
        }
    }

    /** Loss and accuracy on a loader, in eval mode without recording gradients. */
    public static EpochResult evaluate(Module model, DataLoader loader, SoftmaxCrossEntropyLoss lossFn) {
        model.eval();
        long start = System.nanoTime();
        Device device = model.parameters().get(0).device();
        long samples = 0;
        try (GradMode.Off off = GradMode.off();
             NDArray sums = ArrayScope.outside(() -> NDArray.zeros(device, 2))) {
            for (Batch batch : loader.epoch(0)) {
                try (ArrayScope step = ArrayScope.open(); batch) {
                    Tensor logits = model.forward(Tensor.constant(batch.x()));
                    Tensor loss = lossFn.forward(logits, batch.y());
                    addBatchMetrics(sums, logits, loss, batch.y());
                    samples += batch.size();
                }
            }
            float[] s = sums.toArray();
            double seconds = (System.nanoTime() - start) / 1e9;
            return new EpochResult(s[0] / samples, s[1] / samples, samples, seconds);
        } finally {
            model.train();
        }
    }

    /**
     * Adds a batch's loss times its size and its number of right predictions (argmax of the logits equals the
     * label) into {@code sums}, a compact (2,) array on the model's device: one backend call
     * ({@link org.mpi2nccl.tensor.Backend#addBatchMetrics}), no wait for the GPU.
     */
    public static void addBatchMetrics(NDArray sums, Tensor logits, Tensor loss, NDArray labels) {
        NDArray l = logits.data();
        if (l.ndim() != 2 || labels.ndim() != 1 || labels.shape(0) != l.shape(0) || loss.data().size() != 1)
            throw new IllegalArgumentException("addBatchMetrics: logits " + Shapes.str(l.shape()) + ", labels " + Shapes.str(labels.shape())
                    + " and loss " + Shapes.str(loss.data().shape()) + " do not fit: expected (N, C), (N,) and one element");
        if (sums.size() != 2 || !sums.isCompact())
            throw new IllegalArgumentException("addBatchMetrics: sums must be a compact (2,) array, got " + Shapes.str(sums.shape()));
        try (NDArray lc = l.compact(); NDArray yc = labels.compact(); NDArray lossc = loss.data().compact()) {
            sums.backend().addBatchMetrics(lc.storage(), yc.storage(), lossc.storage(), sums.storage(), l.shape(0), l.shape(1));
        }
    }

    /** Number of rows whose argmax equals the label, as a (1,) array on the device. */
    public static NDArray countCorrect(NDArray logits, NDArray labels) {
        try (NDArray pred = logits.argmax(1); NDArray hit = pred.eq(labels)) {
            return hit.sum().reshape(1);
        }
    }
}
