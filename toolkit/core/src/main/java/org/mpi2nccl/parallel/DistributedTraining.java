package org.mpi2nccl.parallel;

import org.mpi2nccl.autograd.GradMode;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.nn.Training;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * The data-parallel training loop of lessons 03 and 05: {@link Training}'s loop with {@link DataParallel#step} in
 * place of the local step, and loss and accuracy summed over all ranks at the end of the epoch (one small all-reduce),
 * so every rank reports the figures of the whole epoch. Where the time of the steps went is the timing package's
 * ({@code parallel.timing.StepTimer}).
 */
public final class DistributedTraining {
    private DistributedTraining() {}

    /** Told after each step: the batch number (from 1) and the number of batches in the epoch. */
    @FunctionalInterface
    public interface BatchListener {
        void batchDone(int batch, int batches);
    }

    /**
     * One epoch over all ranks.
     *
     * @param meanLoss  mean training loss over every example of every rank
     * @param accuracy  fraction of training examples classified right (during the epoch, as the model learnt)
     * @param samples   examples of all ranks together
     * @param seconds   this rank's wall time for the epoch
     */
    public record EpochResult(int epoch, double meanLoss, double accuracy, long samples, double seconds) {
        public double samplesPerSecond() {
            return samples / seconds;
        }
    }

    /** Loss and accuracy of a whole (sharded) evaluation set. */
    public record EvalResult(double meanLoss, double accuracy, long samples, double seconds) {}

    /** One training epoch; {@code loader} must draw this rank's share (a {@link DistributedSampler}). */
    public static EpochResult trainEpoch(DataParallel dp, DataLoader loader, int epoch, Optimizer optimizer,
                                         SoftmaxCrossEntropyLoss lossFn, BatchListener onBatch) {
        dp.model().train();
        Device device = dp.model().parameters().get(0).device();
        // The ranks start the epoch's clock together (PyTorch's DDP peer does the same with dist.barrier()): what one
        // rank still did between epochs (evaluating, reporting, a garbage collection) would otherwise be counted in
        // the others' first all-reduce, as training time.
        if (dp.ranks() > 1) dp.communicator().barrier();
        long start = System.nanoTime();
        int batches = loader.batchesPerEpoch();
        int b = 0;
        try (NDArray sums = ArrayScope.outside(() -> NDArray.zeros(device, 2))) {
            long samples = 0;
            for (Batch batch : loader.epoch(epoch)) {
                try (ArrayScope step = ArrayScope.open(); batch) {
                    DataParallel.StepOutput out = dp.step(batch, optimizer, lossFn);
                    Training.addBatchMetrics(sums, out.logits(), out.loss(), batch.y());
                    samples += batch.size();
                }
                if (onBatch != null) onBatch.batchDone(++b, batches);
            }
            float[] s = sumOverRanks(dp, sums, samples);
            double seconds = (System.nanoTime() - start) / 1e9;
            return new EpochResult(epoch, s[0] / s[2], s[1] / s[2], (long) s[2], seconds);
        }
    }

    /**
     * Loss and accuracy over a data set sharded with {@link DistributedSampler#evaluation}: each rank evaluates
     * its share, the sums are all-reduced. The batch-norm running statistics are averaged over the ranks first.
     */
    public static EvalResult evaluate(DataParallel dp, DataLoader loader, SoftmaxCrossEntropyLoss lossFn) {
        dp.averageBuffers();
        dp.model().eval();
        Device device = dp.model().parameters().get(0).device();
        long start = System.nanoTime();
        try (GradMode.Off off = GradMode.off();
             NDArray sums = ArrayScope.outside(() -> NDArray.zeros(device, 2))) {
            long samples = 0;
            for (Batch batch : loader.epoch(0)) {
                try (ArrayScope step = ArrayScope.open(); batch) {
                    Tensor logits = dp.model().forward(Tensor.constant(batch.x()));
                    Tensor loss = lossFn.forward(logits, batch.y());
                    Training.addBatchMetrics(sums, logits, loss, batch.y());
                    samples += batch.size();
                }
            }
            float[] s = sumOverRanks(dp, sums, samples);
            return new EvalResult(s[2] == 0 ? Double.NaN : s[0] / s[2], s[2] == 0 ? Double.NaN : s[1] / s[2], (long) s[2],
                    (System.nanoTime() - start) / 1e9);
        } finally {
            dp.model().train();
        }
    }

    /** {loss sum, correct, samples} summed over the ranks (one all-reduce of three floats, on the model's device). */
    private static float[] sumOverRanks(DataParallel dp, NDArray lossAndHits, long samples) {
        float[] s = lossAndHits.toArray();
        float[] local = {s[0], s[1], samples};
        try (NDArray sums = NDArray.of(lossAndHits.device(), local, 3)) {
            Tensors.allReduce(dp.communicator(), sums, Reduction.SUM);
            return sums.toArray();
        }
    }
}
