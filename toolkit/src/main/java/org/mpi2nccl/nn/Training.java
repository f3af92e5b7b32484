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
        try (NDArray lossSum = ArrayScope.outside(() -> NDArray.zeros(device, 1));
             NDArray correct = ArrayScope.outside(() -> NDArray.zeros(device, 1))) {
            for (Batch batch : loader.epoch(epoch)) {
                try (ArrayScope step = ArrayScope.open(); batch) {
                    optimizer.zeroGrad();
                    Tensor logits = model.forward(Tensor.constant(batch.x()));
                    Tensor loss = lossFn.forward(logits, batch.y());
                    loss.backward();
                    optimizer.step();
                    int n = batch.size();
                    lossSum.addInPlace(loss.data().mul((float) n).reshape(1));
                    correct.addInPlace(countCorrect(logits.data(), batch.y()));
                    samples += n;
                }
                if (onBatch != null) onBatch.accept(++b);
            }
            device.backend().synchronize();
            double seconds = (System.nanoTime() - start) / 1e9;
            return new EpochResult(lossSum.item() / samples, correct.item() / samples, samples, seconds);
        }
    }

    /** Loss and accuracy on a loader, in eval mode without recording gradients. */
    public static EpochResult evaluate(Module model, DataLoader loader, SoftmaxCrossEntropyLoss lossFn) {
        model.eval();
        long start = System.nanoTime();
        Device device = model.parameters().get(0).device();
        long samples = 0;
        try (GradMode.Off off = GradMode.off();
             NDArray lossSum = ArrayScope.outside(() -> NDArray.zeros(device, 1));
             NDArray correct = ArrayScope.outside(() -> NDArray.zeros(device, 1))) {
            for (Batch batch : loader.epoch(0)) {
                try (ArrayScope step = ArrayScope.open(); batch) {
                    Tensor logits = model.forward(Tensor.constant(batch.x()));
                    Tensor loss = lossFn.forward(logits, batch.y());
                    lossSum.addInPlace(loss.data().mul((float) batch.size()).reshape(1));
                    correct.addInPlace(countCorrect(logits.data(), batch.y()));
                    samples += batch.size();
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new EpochResult(lossSum.item() / samples, correct.item() / samples, samples, seconds);
        } finally {
            model.train();
        }
    }

    /** Number of rows whose argmax equals the label, as a (1,) array on the device. */
    public static NDArray countCorrect(NDArray logits, NDArray labels) {
        try (NDArray pred = logits.argmax(1); NDArray hit = pred.eq(labels)) {
            return hit.sum().reshape(1);
        }
    }
}
