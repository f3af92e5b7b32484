package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.math3.stat.StatUtils;
import org.mpi2nccl.bench.SpeedupConfig;
import org.mpi2nccl.bench.SpeedupExperiment;
import org.mpi2nccl.bench.SpeedupResults;
import org.mpi2nccl.parallel.gpu.Route;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Lesson 05's benchmark for the write-up: the lesson's speedup experiment, cut short, over more rank counts (1, 2
 * and 4 CPU ranks whatever the cores, so that the table shows what happens when ranks outnumber them; on GPUs, the
 * lesson's own counts). The student reads the table and writes what it says; the sentences here only report the
 * numbers and whether the spread of the epochs lets them be compared.
 */
public final class Lesson05Sweep {
    /** CPU rank counts of the sweep. */
    public static final List<Integer> CPU_RANKS = List.of(1, 2, 4);
    /** Steps of the largest rank count in an epoch: enough steps that an epoch is not one slow step. */
    static final int STEPS_AT_MOST_RANKS = 16;

    private Lesson05Sweep() {
    }

    /** The sweep's experiment: the live experiment's model and route, two short epochs after a short warm-up, one round. */
    public static SpeedupExperiment of(SpeedupExperiment live) {
        SpeedupConfig c = SpeedupConfig.fromJson(live.config().toJson());   // a copy: the live settings stay as they are
        boolean gpu = c.device.equals("cuda");
        List<Integer> ranks = gpu ? live.rankCounts() : CPU_RANKS;
        int most = ranks.stream().mapToInt(Integer::intValue).max().orElse(1);
        c.epochs = 2;
        c.trainExamples = STEPS_AT_MOST_RANKS * most * c.batchFor(most);
        c.testExamples = Math.min(c.testExamples, 200);
        c.warmupSteps = gpu ? 100 : 30;
        List<Route> route = live.routes().contains(Route.NCCL) ? List.of(Route.NCCL) : List.of(Route.MPI);
        return new SpeedupExperiment(c, route, ranks).rounds(1);
    }

    /** One row a rank count: the median step, the epoch and its spread over the epochs, speedup and efficiency. */
    public static Table table(SpeedupResults r, String route) {
        IntColumn ranks = IntColumn.create("ranks");
        DoubleColumn step = DoubleColumn.create("step (ms)"), epoch = DoubleColumn.create("epoch (s)"),
                speedup = DoubleColumn.create("speedup (x)"), efficiency = DoubleColumn.create("efficiency (%)");
        StringColumn spread = StringColumn.create("epochs (s)");
        for (int n : rankCounts(r, route)) {
            Table t = r.run(n == 1 ? SpeedupResults.SINGLE : route, n);
            double[] epochs = t.doubleColumn("epoch_s").asDoubleArray();
            double steps = t.longColumn("steps").getLong(0);
            double median = StatUtils.percentile(epochs, 50);
            double x = n == 1 ? 1 : r.speedup(route, n);
            ranks.append(n);
            step.append(round(1e3 * median / steps));
            epoch.append(round(median));
            spread.append(String.format(Locale.ROOT, "%.3g-%.3g", StatUtils.min(epochs), StatUtils.max(epochs)));
            speedup.append(round(x));
            efficiency.append(round(100 * x / n));
        }
        return Table.create("speedup by rank count (" + route + ")", ranks, step, epoch, spread, speedup, efficiency);
    }

    /** What the table shows, computed from it: each count's speedup against the ideal, and whether the epochs agree. */
    public static String verdict(SpeedupResults r, String route, int cores) {
        List<Integer> counts = rankCounts(r, route);
        if (counts.size() < 2) return "The sweep has fewer than two rank counts to compare: " + r.failures();
        List<String> out = new ArrayList<>();
        for (int n : counts) {
            if (n == 1) continue;
            double x = r.speedup(route, n);
            out.add(String.format(Locale.ROOT, "%d ranks: %.2fx, %.0f%% of the ideal %dx%s.", n, x, 100 * x / n, n,
                    n > cores && !route.equals(Route.NCCL.label()) ? String.format(Locale.ROOT,
                    " (%d ranks on %d cores: at most %d compute at once)", n, cores, cores) : ""));
        }
        double widest = 0;
        for (int n : counts) {
            double[] e = r.run(n == 1 ? SpeedupResults.SINGLE : route, n).doubleColumn("epoch_s").asDoubleArray();
            widest = Math.max(widest, StatUtils.max(e) / StatUtils.min(e) - 1);
        }
        out.add(String.format(Locale.ROOT, "The two epochs of a run differ by up to %.0f%%: %s", 100 * widest,
                widest > 0.1 ? "other work on the machine moved these numbers, so read a speedup to within that much."
                        : "the runs were steady, so the speedups are as close as this sweep can tell."));
        if (!r.failures().isEmpty()) out.add("Runs that failed: " + r.failures());
        return String.join(" ", out);
    }

    private static List<Integer> rankCounts(SpeedupResults r, String route) {
        List<Integer> out = new ArrayList<>();
        if (r.run(SpeedupResults.SINGLE, 1).rowCount() > 0) out.add(1);
        for (int n = 2; n <= 64; n++) if (r.run(route, n).rowCount() > 0) out.add(n);
        return out;
    }

    /** 3 significant digits. */
    private static double round(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x) || x == 0) return x;
        return new java.math.BigDecimal(x).round(new java.math.MathContext(3)).doubleValue();
    }
}
