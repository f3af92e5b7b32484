package org.mpi2nccl.parallel.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaContext;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.DistributedTraining;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.Device;

/**
 * Steps replayed from CUDA graphs ({@link GpuOptions#cudaGraphs}) train exactly as eager steps: the
 * lesson CNN trained for two epochs of 10 full batches and a short last one, with the learning rate changed after
 * every step of the first epoch (a warm-up, as the speedup experiment's scaled rate has: the recorded update reads
 * the rate the replay wrote), ends with the same parameters and the same per-epoch loss and accuracy (read off the
 * graphs' own logits and loss), and every full batch after the first steady steps was in fact replayed.
 */
@Tag("gpu")
class StepGraphsGpuTest {
    static final int BATCH = 64, FULL_BATCHES = 10, EPOCHS = 2;

    record Run(float[][] params, double[] loss, double[] accuracy, long replays, String off, CudaContext.WorkCounts lastStep) {}

    @Test
    void graphsTrainAsEagerSteps() {
        GpuTests.requireGpu();
        Device d = Device.cuda(0);
        Run eager = train(d, false), graphed = train(d, true);
        assertEquals(0, eager.replays());
        assertNull(graphed.off(), "graphs were used");
        // recorded once after the first steady steps, then every full batch replayed, the warm-up's too; the short ones eager
        int full = EPOCHS * FULL_BATCHES - StepGraphs.STEADY_STEPS;
        assertEquals(full, graphed.replays(), "steps replayed from graphs (a rate change must not stop the replays)");
        double worst = 0;
        for (int i = 0; i < eager.params().length; i++) {
            for (int j = 0; j < eager.params()[i].length; j++) {
                float a = eager.params()[i][j], b = graphed.params()[i][j];
                worst = Math.max(worst, Math.abs(a - b) / Math.max(1e-3, Math.abs(a)));
            }
        }
        System.out.printf("CUDA graphs: %d of %d steps replayed; max relative parameter difference to eager steps %.2e;"
                        + " loss per epoch eager %s graphs %s; last step's host work with graphs %s, eager %s%n",
                graphed.replays(), EPOCHS * (FULL_BATCHES + 1), worst, java.util.Arrays.toString(eager.loss()),
                java.util.Arrays.toString(graphed.loss()), graphed.lastStep(), eager.lastStep());
        assertTrue(worst < 1e-4, "parameters after training, graphs vs eager: max relative difference " + worst);
        for (int e = 0; e < EPOCHS; e++) {
            assertEquals(eager.loss()[e], graphed.loss()[e], 1e-4 * Math.abs(eager.loss()[e]), "epoch " + e + " loss");
            assertEquals(eager.accuracy()[e], graphed.accuracy()[e], 2.5 / (BATCH * FULL_BATCHES + 17), "epoch " + e + " accuracy (two examples at most)");
        }
        assertTrue(graphed.lastStep().launches() < eager.lastStep().launches(),
                "a replayed step queues fewer launches: " + graphed.lastStep() + " vs " + eager.lastStep());
    }

    /**
     * The recorded forward graph replayed alone (the speedup experiment sets it against the step's forward phase) takes
     * a positive, finite time per replay and leaves the model as it was: parameters and batch-norm running statistics.
     */
    @Test
    void theForwardGraphReplayedAloneLeavesTheModelAsItWas() {
        GpuTests.requireGpu();
        Device d = Device.cuda(0);
        LocalRanks.run(1, b -> {}, comm -> {
            SyntheticDataset data = new SyntheticDataset(BATCH * FULL_BATCHES, new int[] {1, 28, 28}, 10, 7);
            DataLoader loader = new DataLoader(data, BATCH, true, 1, false, d);
            try (Module net = Models.cnn(32, 64, d, 3); SGD opt = new SGD(net.parameters(), 0.05f, 0.9f, 0f);
                 GpuDataParallel dp = new GpuDataParallel(net, comm, DataParallel.Options.defaults(), GpuOptions.defaults().cudaGraphs(true))) {
                DistributedTraining.trainEpoch(dp, loader, 0, opt, new SoftmaxCrossEntropyLoss(), null);
                assertTrue(dp.graphReplays() > 0, "the epoch replayed graphs");
                List<float[]> before = new ArrayList<>();
                for (var a : net.state().values()) before.add(a.toArray());
                double micros = org.mpi2nccl.bench.gpu.ForwardGraphProbe.micros(dp, 20);
                System.out.printf("forward graph replayed alone: %.1f us%n", micros);
                assertTrue(micros > 0 && Double.isFinite(micros), "time per replay: " + micros);
                int i = 0;
                for (var e : net.state().entrySet()) {
                    assertTrue(java.util.Arrays.equals(before.get(i++), e.getValue().toArray()), e.getKey() + " changed");
                }
            }
            return null;
        });
    }

    private static Run train(Device d, boolean graphs) {
        CudaContext ctx = ((CudaBackend) d.backend()).context();
        return LocalRanks.run(1, b -> {}, comm -> {
            SyntheticDataset data = new SyntheticDataset(BATCH * FULL_BATCHES + 17, new int[] {1, 28, 28}, 10, 7);
            DataLoader loader = new DataLoader(data, BATCH, true, 1, false, d);
            double[] loss = new double[EPOCHS], acc = new double[EPOCHS];
            List<CudaContext.WorkCounts> marks = new ArrayList<>();
            try (Module net = Models.cnn(32, 64, d, 3); SGD opt = new SGD(net.parameters(), 0.05f, 0.9f, 0f);
                 GpuDataParallel dp = new GpuDataParallel(net, comm, DataParallel.Options.defaults(), GpuOptions.defaults().cudaGraphs(graphs))) {
                for (int e = 0; e < EPOCHS; e++) {
                    int epoch = e;
                    DistributedTraining.EpochResult r = DistributedTraining.trainEpoch(dp, loader, e, opt, new SoftmaxCrossEntropyLoss(),
                            (batch, batches) -> {
                                if (epoch == 0) opt.setLr(batch < batches ? 0.02f + 0.003f * batch : 0.05f);
                                if (batch >= batches - 2) marks.add(ctx.workCounts());
                            });
                    loss[e] = r.meanLoss();
                    acc[e] = r.accuracy();
                }
                float[][] params = new float[net.parameters().size()][];
                int i = 0;
                for (Tensor p : net.parameters()) params[i++] = p.toArray();
                // the last full batch of the last epoch: between the marks after batches n-2 and n-1
                CudaContext.WorkCounts last = marks.get(marks.size() - 2).minus(marks.get(marks.size() - 3));
                return new Run(params, loss, acc, dp.graphReplays(), dp.graphsOff(), last);
            }
        }).get(0);
    }
}
