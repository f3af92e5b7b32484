package org.mpi2nccl.lessons;

import java.util.List;
import java.util.Locale;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.mpi2nccl.bench.BandwidthJob;
import org.mpi2nccl.bench.BenchRow;
import org.mpi2nccl.bench.SpeedupConfig;
import org.mpi2nccl.bench.SpeedupExperiment;
import org.mpi2nccl.bench.SpeedupResults;
import org.mpi2nccl.parallel.gpu.Route;
import tech.tablesaw.api.Table;

/**
 * Lesson 05's two measured inputs, timed live before the experiment: one rank's time per training step
 * ({@code t_c}: loading the batch, forward, backward, optimizer) and the time of one all-reduce of the model's
 * gradients over two ranks ({@code t_a}). This is plumbing: the speedup model built from them is the student's.
 *
 * @param stepSeconds      t_c, seconds per step of one rank with {@code batchPerRank} examples
 * @param allReduceSeconds t_a, seconds per all-reduce of {@code gradientBytes} bytes on two ranks
 */
public record Lesson05Timing(double stepSeconds, double allReduceSeconds, long gradientBytes, int batchPerRank) {
    /** Steps per epoch of the short one-rank run that times t_c (three epochs: the median leaves out a slow one). */
    static final int STEPS_PER_EPOCH = 60;

    /**
     * Times t_c with a short one-rank run of {@code live}'s settings, then t_a with the bandwidth harness on two
     * ranks: the gradients' size, over the communicator the live run uses (MPJ on CPUs, NCCL on GPUs).
     */
    public static Lesson05Timing measure(SpeedupConfig live) {
        SpeedupConfig c = SpeedupConfig.fromJson(live.toJson());       // a copy: the live settings stay as they are
        c.epochs = LessonLength.current().pick(3, 2);
        c.trainExamples = LessonLength.current().pick(STEPS_PER_EPOCH, STEPS_PER_EPOCH / 2) * c.batchFor(1);
        c.testExamples = 500;
        boolean gpu = c.device.equals("cuda");
        Route route = gpu ? Route.NCCL : Route.MPI;
        SpeedupResults one = new SpeedupExperiment(c, List.of(route), List.of(1)).log(line -> { }).run();
        Table t = one.run(SpeedupResults.SINGLE, 1);
        if (t.rowCount() == 0) throw new IllegalStateException("the one-rank timing run failed: " + one.failures());
        double[] perStep = new double[t.rowCount()];
        for (int i = 0; i < perStep.length; i++) {
            perStep[i] = t.doubleColumn("epoch_s").getDouble(i) / t.longColumn("steps").getLong(i);
        }
        long bytes = t.longColumn("gradient_bytes").getLong(0);
        BenchRow row = BandwidthJob.of(gpu ? "nccl" : "mpj").ranks(2).sizes(Long.toString(bytes), Long.toString(bytes), 2)
                .iterations(20, 200, 30, 2.0).inPlace(false).check(false).run().rows().get(0);
        return new Lesson05Timing(new Median().evaluate(perStep),
                row.timeUs() / 1e6, bytes, c.batchFor(1));
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "one rank:  t_c = %.2f ms per step of %d examples%n"
                + "two ranks: t_a = %.2f ms to all-reduce %d bytes of gradients", 1e3 * stepSeconds, batchPerRank,
                1e3 * allReduceSeconds, gradientBytes);
    }
}
