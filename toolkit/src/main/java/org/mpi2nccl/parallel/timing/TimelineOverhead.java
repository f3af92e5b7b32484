package org.mpi2nccl.parallel.timing;

import org.mpi2nccl.parallel.StepListener;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.nn.Flatten;
import org.mpi2nccl.nn.Linear;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.ReLU;
import org.mpi2nccl.nn.Sequential;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.Rng;

/**
 * What a {@link Timeline} costs a training step: lesson 03's model (an MLP 784-256-256-256-10, batch 24 per rank,
 * buckets of 300 KB, overlap on) on 2 CPU ranks (threads of this JVM, the hand-written ring), rounds of steps
 * without a listener and with a timeline recording, alternating step by step (which of the two goes first alternates
 * too), so that a slow spell of a shared machine hits both alike. Steps are grouped in rounds; it prints rank 0's
 * median step time of each setting per round, the median of the rounds' ratios with/without and the median of the
 * adjacent pairs' ratios, and the timeline's own calls timed alone (its cost without the step's noise around it).
 * A benchmark, not a test: on a shared machine the figures vary from run to run, so nothing here asserts a bound.
 * "Off" is {@link DataParallel}'s empty default listener: what a step costs when nobody records.
 *
 * <pre>
 * mpi2nccl bench-timeline [--rounds 10] [--steps 30]
 * java -cp "toolkit/target/mpi2nccl-toolkit.jar:toolkit/target/lib/*" org.mpi2nccl.cli.Main bench-timeline
 * </pre>
 * results/timeline-overhead/ keeps a run's output.
 */
public final class TimelineOverhead {
    private TimelineOverhead() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        System.out.printf(Locale.ROOT, "Java %s, %d cores; %d rounds of %d steps, each round both settings, alternating which goes first%n",
                Runtime.version(), Runtime.getRuntime().availableProcessors(), rounds, steps);
        SyntheticDataset data = new SyntheticDataset(48, new int[] {1, 28, 28}, 10, 7);
        List<double[][]> got = LocalRanks.run(2, b -> {}, c -> {
            Rng rng = new Rng(3);
            Device cpu = Device.cpu();
            Module net = new Sequential(new Flatten(), new Linear(784, 256, cpu, rng), new ReLU(), new Linear(256, 256, cpu, rng),
                    new ReLU(), new Linear(256, 256, cpu, rng), new ReLU(), new Linear(256, 10, cpu, rng));
            DataLoader loader = new DataLoader(data, 24, false, 1, true, cpu);
            try (net; DataParallel dp = new DataParallel(net, c, DataParallel.Options.defaults().bucketBytes(300 * 1024));
                 SGD opt = new SGD(net.parameters(), 0.01f, 0.9f, 0f);
                 Batch batch = loader.epoch(0).iterator().next()) {
                SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
                StepListener none = new StepListener() {};
                run(dp, batch, opt, lossFn, 3 * steps);                      // the JIT compiles the step first
                Timeline timeline = Timeline.attach(dp, rounds * steps);      // records every step it is listening to
                double[][] medians = new double[3][rounds];                   // [off, on, pair ratio][round], ms
                double[][] step = new double[2][steps];
                double[] pairRatio = new double[steps];
                for (int r = 0; r < rounds; r++) {
                    for (int i = 0; i < steps; i++) {
                        for (int k = 0; k < 2; k++) {
                            int which = ((r * steps + i) % 2 == 0) ? k : 1 - k;
                            dp.listen(which == 1 ? timeline : none);
                            step[which][i] = run(dp, batch, opt, lossFn, 1)[0];
                        }
                        pairRatio[i] = step[1][i] / step[0][i];
                    }
                    medians[0][r] = median(step[0]);
                    medians[1][r] = median(step[1]);
                    medians[2][r] = median(pairRatio);
                }
                return medians;
            }
        });
        double[][] m = got.get(0);
        double off = median(m[0]), on = median(m[1]);
        double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++) ratio[r] = m[1][r] / m[0][r];
        System.out.println("rank 0, median step time per round (ms):");
        System.out.println("  no timeline:   " + fmt(m[0]));
        System.out.println("  with timeline: " + fmt(m[1]));
        System.out.printf(Locale.ROOT, "median over %d rounds of %d steps: %.3f ms without, %.3f ms with a timeline; "
                + "median of the rounds' ratios with/without: %+.2f%%; median of the rounds' median pair ratios: %+.2f%%%n",
                rounds, steps, off, on, 100 * (median(ratio) - 1), 100 * (median(m[2]) - 1));
        double recordNs = listenerNanosPerStep(3);
        System.out.printf(Locale.ROOT, "the timeline's own calls for one step of 3 buckets, timed alone: %.2f us = %.3f%% of the %.3f ms step%n",
                recordNs / 1e3, 100 * recordNs / 1e6 / off, off);
    }

    /**
     * The listener calls one step makes into a timeline (4 phases, {@code buckets} launches and all-reduces), timed in
     * a loop of their own: the timeline's cost without the step's noise around it.
     */
    static double listenerNanosPerStep(int buckets) {
        int n = 20_000;
        double[] perStep = new double[15];
        org.mpi2nccl.comm.CommBuffer buf = org.mpi2nccl.comm.HostBuffer.of(new float[16]);
        for (int rep = 0; rep < perStep.length; rep++) {
            Timeline t = new Timeline(0, n, System.nanoTime());
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                t.stepStarted();
                t.forwardDone();
                for (int b = 0; b < buckets; b++) t.bucketLaunched(b);
                t.backwardDone();
                for (int b = 0; b < buckets; b++) t.allReduced(null, buf, 1000);
                t.gradientsAveraged();
                t.optimizerDone();
            }
            perStep[rep] = (double) (System.nanoTime() - t0) / n;
        }
        return median(Arrays.copyOfRange(perStep, 5, perStep.length));       // the first repetitions warm the JIT
    }

    private static double[] run(DataParallel dp, Batch batch, SGD opt, SoftmaxCrossEntropyLoss lossFn, int steps) {
        double[] ms = new double[steps];
        for (int i = 0; i < steps; i++) {
            long t0 = System.nanoTime();
            try (ArrayScope scope = ArrayScope.open()) {
                dp.step(batch, opt, lossFn);
            }
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        return ms;
    }

    private static double median(double[] v) {
        return new org.apache.commons.math3.stat.descriptive.rank.Median().evaluate(v);
    }

    private static String fmt(double[] v) {
        List<String> out = new ArrayList<>();
        for (double x : v) out.add(String.format(Locale.ROOT, "%.3f", x));
        return String.join(" ", out);
    }
}
