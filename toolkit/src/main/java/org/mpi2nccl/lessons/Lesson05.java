package org.mpi2nccl.lessons;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.mpi2nccl.bench.ProgressReporter;
import org.mpi2nccl.bench.SpeedupConfig;
import org.mpi2nccl.bench.SpeedupExperiment;
import org.mpi2nccl.bench.SpeedupResults;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.dist.Route;
import org.mpi2nccl.kernel.Progress;
import tech.tablesaw.api.Table;

/**
 * Lesson 05, speedup vs a single GPU: the experiment run live (GPUs here: NCCL and MPI on them; none: a small
 * CPU run, said plainly), the recorded GPU results from {@code results/data-parallel-2gpu/}, and the exercise (the
 * speedup the 2-rank run would reach if communication were free).
 */
public final class Lesson05 {
    /** Where the recorded results of scripts/gpu/data-parallel.sh are kept in the repository. */
    public static final String RECORDED = "results/data-parallel-2gpu";

    private Lesson05() {
    }

    /** GPUs: the project's default experiment; no GPU: a small CPU run (one core per rank) that takes about a minute. */
    public static SpeedupExperiment liveExperiment() {
        if (Cuda.isAvailable() && Cuda.deviceCount() > 0) {
            return SpeedupExperiment.defaults();
        }
        SpeedupConfig c = SpeedupExperiment.defaults().config();
        c.trainExamples = 2400;
        c.testExamples = 1000;
        c.epochs = 3;                 // the median epoch leaves out a first epoch still slowed by the JIT
        c.warmupSteps = 20;
        return new SpeedupExperiment(c, List.of(Route.MPI), List.of(1, 2));
    }

    /** A {@link ProgressReporter} that draws the kernel's in-cell progress bar. */
    public static ProgressReporter inCell() {
        return (label, total) -> {
            Progress p = Progress.start(label, total);
            return new ProgressReporter.Bar() {
                @Override
                public void update(long done, String note) {
                    p.set(done);
                }

                @Override
                public void close() {
                    p.close();
                }
            };
        };
    }

    /** The folder of recorded results {@code name} (e.g. "fashion-vs-ddp"), looked for from here upwards; null if absent. */
    public static Path recordedFolder(String name) {
        Path dir = Path.of("").toAbsolutePath();
        for (int up = 0; dir != null && up < 4; up++, dir = dir.getParent()) {
            Path f = dir.resolve(RECORDED).resolve(name);
            if (Files.isReadable(f.resolve("epochs.csv"))) return f;
        }
        return null;
    }

    /** Recorded results, or null (with the reason printed) when they are not in the repository yet. */
    public static SpeedupResults recorded(String name) throws IOException {
        Path f = recordedFolder(name);
        if (f == null) {
            System.out.println("No recorded results '" + name + "' in " + RECORDED + "/ yet: they come from running"
                    + " scripts/gpu/data-parallel.sh on a GPU machine.");
            return null;
        }
        SpeedupResults r = SpeedupResults.fromCsv(List.of(f.resolve("epochs.csv")));
        System.out.println("RECORDED results (not this machine): " + r.machine() + ". " + r.settings());
        return r;
    }

    /** {1-rank, 2-rank} x {epoch_s, comm_s, speedup} of {@code route} in the summary. */
    private static double[][] rows(SpeedupResults r, String route) {
        Table s = r.summary();
        double[] one = null, two = null;
        for (int i = 0; i < s.rowCount(); i++) {       // Tablesaw's Row is a moving cursor: copy the values out
            String rr = s.stringColumn("route").get(i);
            int n = s.intColumn("ranks").getInt(i);
            double[] v = {s.doubleColumn("epoch_s").getDouble(i), s.doubleColumn("comm_s").getDouble(i), s.doubleColumn("speedup").getDouble(i)};
            if (n == 1 && (rr.equals(SpeedupResults.SINGLE) || rr.equals(route))) one = v;
            if (n == 2 && rr.equals(route)) two = v;
        }
        if (one == null || two == null) throw new IllegalArgumentException("the results have no 1-rank and 2-rank " + route + " runs");
        return new double[][] {one, two};
    }

    /** The answer: epoch_s of 1 rank / (epoch_s of 2 ranks - their communication per epoch). */
    public static double noCommSpeedup(SpeedupResults r, String route) {
        double[][] x = rows(r, route);
        return x[0][0] / (x[1][0] - x[1][1]);
    }

    /** Checks the exercise's answer against the results it was computed from. */
    public static Check checkNoCommSpeedup(SpeedupResults r, String route, double answer) {
        double[][] x = rows(r, route);
        double right = noCommSpeedup(r, route);
        String title = String.format(Locale.ROOT, "speedup without communication: %.3f", answer);
        if (close(answer, right)) {
            double measured = x[0][0] / x[1][0];
            return Check.right(title, String.format(Locale.ROOT, "measured %.2fx; without the %.2f s of communication per"
                    + " epoch it would be %.2fx (ideal 2x): the rest of the gap is work that does not halve (loading"
                    + " batches, a rank waiting for the other).", measured, x[1][1], right));
        }
        String why;
        if (Double.isNaN(answer) || answer == 0) {
            why = "no answer yet: compute it from the summary table.";
        } else if (close(answer, x[0][0] / x[1][0])) {
            why = "that is the measured speedup: take the 2-rank epoch's communication (comm_s) out of its time first.";
        } else if (close(answer, x[1][2])) {
            why = "that is the table's speedup (from the median epoch's throughput): use epoch_s and comm_s of the two rows.";
        } else if (close(answer, 1 / right)) {
            why = "upside down: the 1-rank epoch time divided by the 2-rank time without communication.";
        } else if (close(answer, x[0][0] / (x[1][0] + x[1][1]))) {
            why = "subtract the communication from the 2-rank epoch time; it was added.";
        } else {
            why = String.format(Locale.ROOT, "expected %.3f = %.3f s / (%.3f s - %.3f s).", right, x[0][0],
                    x[1][0], x[1][1]);
        }
        return Check.wrong(title + " is not it", why);
    }

    private static boolean close(double a, double b) {
        return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
    }
}
