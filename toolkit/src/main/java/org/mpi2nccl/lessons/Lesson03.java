package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.data.ArrayDataset;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.FashionMnist;
import org.mpi2nccl.dist.DistributedSampler;
import org.mpi2nccl.dist.EquivalenceCheck;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Lesson 03, data-parallel training over MPI: the equivalence of N ranks with batch B/N and one rank with
 * batch B, shown with numbers, and the exercise (average the gradients yourself with MPI's Allreduce).
 */
public final class Lesson03 {
    /** The single rank's batch: divisible by 1, 2, 3 and 4 ranks. */
    public static final int BATCH = 24;
    public static final int STEPS = 20;
    private static final float LR = 0.1f;
    private static final float MOMENTUM = 0.9f;

    private Lesson03() {
    }

    /** The equivalence set-up of the lesson: the small MLP on 1200 Fashion-MNIST images, batch 24, 20 SGD steps. */
    public static EquivalenceCheck.Setup setup() {
        ArrayDataset data = FashionMnist.train().head(1200);
        return new EquivalenceCheck.Setup("mlp", data, BATCH, STEPS, 7, LR, MOMENTUM);
    }

    /**
     * {@link #STEPS} SGD steps of the set-up's model on this rank's share (batch B/N), calling {@code combine}
     * between backward and the update: it is what makes the ranks' gradients one. Every rank starts from the
     * same weights (the seed), so no broadcast is needed. Returns the parameters after.
     */
    public static float[] train(EquivalenceCheck.Setup s, int rank, int size, Consumer<Module> combine) {
        if (BATCH % size != 0) throw new IllegalArgumentException("use a number of ranks that divides " + BATCH + " (1, 2, 3, 4)");
        DistributedSampler sampler = new DistributedSampler(s.data().size(), rank, size, s.seed(), true, DistributedSampler.Tail.DROP);
        try (Module net = EquivalenceCheck.model(s.model(), s.data(), Device.cpu(), s.seed());
             SGD opt = new SGD(net.parameters(), s.lr(), s.momentum(), 0f)) {
            DataLoader loader = new DataLoader(s.data(), s.globalBatch() / size, sampler, true, Device.cpu());
            SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
            int done = 0;
            for (int epoch = 0; done < s.steps(); epoch++) {
                for (Batch b : loader.epoch(epoch)) {
                    try (ArrayScope step = ArrayScope.open(); b) {
                        if (done >= s.steps()) continue;
                        opt.zeroGrad();
                        lossFn.forward(net.forward(Tensor.constant(b.x())), b.y()).backward();
                        combine.accept(net);
                        opt.step();
                        done++;
                    }
                }
            }
            return EquivalenceCheck.flatParameters(net);
        }
    }

    /** Gradients averaged tensor by tensor with the communicator (what DataParallel does in buckets). */
    public static Consumer<Module> mean(Communicator comm) {
        return net -> {
            for (Tensor p : net.parameters()) Tensors.allReduce(comm, p.grad(), Reduction.AVG);
        };
    }

    /** Gradients summed over the ranks but not divided: N times too large a step. */
    public static Consumer<Module> sum(Communicator comm) {
        return net -> {
            for (Tensor p : net.parameters()) Tensors.allReduce(comm, p.grad(), Reduction.SUM);
        };
    }

    /** No communication at all: every rank trains on its own share only. */
    public static Consumer<Module> none() {
        return net -> { };
    }

    /** A number that changes when any weight changes (to see that the ranks agree, or not). */
    public static double checksum(Module net) {
        double s = 0;
        int i = 0;
        for (Tensor p : net.parameters()) {
            for (float v : p.data().toArray()) s += v * (1 + (i++ % 7));
        }
        return s;
    }

    /** Test accuracy per epoch. */
    public static XYChart accuracyChart(List<Double> percent, int ranks) {
        XYChart c = new XYChartBuilder().width(560).height(320).title("Data-parallel MLP on " + ranks + " MPJ ranks")
                .xAxisTitle("epoch").yAxisTitle("test accuracy (%)").build();
        List<Double> x = new ArrayList<>();
        for (int i = 1; i <= percent.size(); i++) x.add((double) i);
        c.addSeries("test accuracy", x, percent);
        c.getStyler().setLegendVisible(false);
        c.getStyler().setXAxisDecimalPattern("0");
        return c;
    }

    /** Relative difference from the single rank with batch B, per way of combining gradients (log scale). */
    public static CategoryChart equivalenceChart(List<String> ways, List<Double> differences, int ranks) {
        CategoryChart c = new CategoryChartBuilder().width(640).height(340)
                .title(ranks + " ranks x batch " + BATCH / ranks + " vs 1 rank x batch " + BATCH + ", after " + STEPS + " steps")
                .xAxisTitle("how the ranks combine their gradients").yAxisTitle("max relative difference").build();
        List<Double> shown = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < differences.size(); i++) {
            double d = differences.get(i);
            boolean diverged = !Double.isFinite(d) || d > 10;
            shown.add(diverged ? 10 : Math.max(d, 1e-9));           // 0 cannot be drawn on a log axis
            names.add(ways.get(i) + (diverged ? " (diverged)" : ""));
        }
        c.addSeries("difference", names, shown);
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setYAxisMin(1e-9);              // bars start at 0 unless told: log axes cannot show 0
        c.getStyler().setYAxisMax(10.0);
        c.getStyler().setLegendVisible(false);
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        return c;
    }

    /**
     * Checks the exercise: trains with the student's {@code averageGradients} and compares with one rank on the
     * whole batch. Collective: run it on every rank (a {@code %%mpj} cell).
     */
    public static Check checkAveraging(int rank, int size, Communicator comm, Consumer<Module> averageGradients) {
        EquivalenceCheck.Setup s = setup();
        float[] reference = EquivalenceCheck.singleRank(s, Device.cpu());
        float[] theirs = train(s, rank, size, averageGradients);
        double d = EquivalenceCheck.relativeDifference(theirs, reference);
        // what the usual mistakes give (collectives: every rank computes them, whatever its own answer)
        double summed = EquivalenceCheck.relativeDifference(theirs, train(s, rank, size, sum(comm)));
        double alone = EquivalenceCheck.relativeDifference(theirs, train(s, rank, size, none()));
        double[] spread = {checksum(theirs), -checksum(theirs)};
        try (NDArray a = NDArray.of(new float[] {(float) spread[0], (float) spread[1]}, 2)) {
            Tensors.allReduce(comm, a, Reduction.MAX);
            float[] m = a.toArray();
            spread[0] = m[0] + m[1];                   // max - min of the ranks' checksums
        }
        String who = "rank " + rank + ": ";
        if (d < 1e-5) {
            return Check.right(who + "same weights as one rank with batch " + BATCH, String.format(Locale.ROOT,
                    "after %d steps the largest difference is %.1e of the weights' size: float rounding only.", STEPS, d));
        }
        String why;
        if (size > 1 && alone < 1e-7) {
            why = "the weights are those of a rank that trained on its own share only: the gradients were not combined."
                    + " Allreduce each parameter's gradient over the ranks.";
        } else if (size > 1 && summed < 1e-5) {
            why = "the gradients were summed but not divided: that is a step " + size + " times too large."
                    + " Divide the sum by the number of ranks (size) to get the mean.";
        } else if (spread[0] > 1e-3) {
            why = "the ranks ended with different weights: every rank must apply the same, combined gradient.";
        } else {
            why = String.format(Locale.ROOT, "the weights differ from one rank with batch %d by %.1e (relative)."
                    + " Each gradient must become the mean over the ranks, written back into p.grad().", BATCH, d);
        }
        return Check.wrong(who + "not the single rank's training", why);
    }

    private static double checksum(float[] v) {
        double s = 0;
        for (int i = 0; i < v.length; i++) s += v[i] * (1 + (i % 7));
        return s;
    }
}
