package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.mpi2nccl.bench.SpeedupResults;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/**
 * Lesson 05's sentences about measurements, built from the numbers: the live speedup and its spread over rounds,
 * the accuracy of 1 and 2 ranks after the same examples, the prediction against the measurement, and the
 * recorded GPU run. A live result can then never contradict the text that describes it.
 */
public final class Lesson05Text {
    /** Rounds whose speedups differ by more than this factor disagree: the machine was busy with something else. */
    static final double SPREAD = 1.15;
    /** Accuracies closer than this many points are called the same (a 2000-example test set has about 0.8 points of noise). */
    static final double SAME_POINTS = 1.0;
    /** A prediction within this fraction of the measurement holds. */
    static final double MODEL_HOLDS = 0.1;

    private Lesson05Text() {
    }

    /** The 2-rank speedup of {@code route} in {@code live}, measured on a machine of {@code cores} cores. */
    public static String speedup(SpeedupResults live, String route, int cores) {
        Row r = row(live.summary(), route, 2);
        if (r == null) return "The live run has no 2-rank result to report: " + live.failures();
        // NCCL's ranks each drive a GPU of their own: the host's cores are not what they share
        return speedup(r.getDouble("speedup_paired"), r.getDouble("speedup_lo"), r.getDouble("speedup_hi"), live.rounds(),
                route.equals("nccl") ? ON_GPUS : onCores(cores)) + beyondTwo(live.summary(), route);
    }

    /** The rank counts above 2 that {@code route} ran (a machine with 4 GPUs runs 1, 2 and 4): their speedups. */
    static String beyondTwo(Table summary, String route) {
        StringBuilder s = new StringBuilder();
        for (int n : rankCounts(summary)) {
            Row r = n > 2 ? row(summary, route, n) : null;
            if (r == null) continue;
            double x = r.getDouble("speedup_paired");
            s.append(String.format(Locale.ROOT, " With %d ranks: %.2fx, %.0f%% of the ideal %dx%s.", n, x, 100 * x / n, n, rounds(r)));
        }
        return s.toString();
    }

    /** " (rounds 3.60x to 3.70x)", or nothing where the rounds agree to the digits shown. */
    private static String rounds(Row r) {
        String lo = String.format(Locale.ROOT, "%.2fx", r.getDouble("speedup_lo")), hi = String.format(Locale.ROOT, "%.2fx", r.getDouble("speedup_hi"));
        return lo.equals(hi) ? "" : " (rounds " + lo + " to " + hi + ")";
    }

    /** The rank counts of a summary, smallest first. */
    static int[] rankCounts(Table summary) {
        return summary.intColumn("ranks").asList().stream().mapToInt(Integer::intValue).distinct().sorted().toArray();
    }

    /** Where the ranks ran, for ranks that each drove a GPU of their own. */
    static final String ON_GPUS = " Each rank had a GPU of its own.";

    /** Where the ranks ran, for CPU ranks on a machine of {@code cores} cores: whether 2 ranks had to share them. */
    static String onCores(int cores) {
        if (cores > 2) return String.format(Locale.ROOT, " This machine has %d cores: each rank had one to itself.", cores);
        return String.format(Locale.ROOT, " This machine has %d core%s: the 2-rank run needs all of them, so anything else"
                + " running takes its time from a rank, and the other rank waits for it.", cores, cores == 1 ? "" : "s");
    }

    /**
     * The sentence for a median speedup over {@code rounds} rounds, each between {@code lo} and {@code hi}, ending with
     * where the ranks ran ({@link #ON_GPUS} or {@link #onCores}).
     */
    static String speedup(double median, double lo, double hi, int rounds, String where) {
        StringBuilder s = new StringBuilder();
        String spread = rounds > 1 ? String.format(Locale.ROOT, " (median of %d rounds; they ranged from %.2fx to %.2fx)", rounds, lo, hi) : "";
        if (median >= 1) {
            s.append(String.format(Locale.ROOT, "On this machine 2 ranks trained %.2fx as fast as one rank%s.", median, spread));
        } else {
            s.append(String.format(Locale.ROOT, "On this machine 2 ranks trained SLOWER than one rank: %.2fx%s."
                    + " What a step lost to communication and to sharing the machine outweighed the second rank's work.", median, spread));
        }
        if (rounds > 1) {
            if (hi / lo > SPREAD) {
                s.append(String.format(Locale.ROOT, " The rounds disagree by %.0f%%: other programs were using the cores."
                        + " Trust the median, and rerun on an idle machine for a tighter range.", 100 * (hi / lo - 1)));
            } else {
                s.append(String.format(Locale.ROOT, " The rounds agree within %.0f%%.", 100 * (hi / lo - 1)));
            }
            if (hi > 2) {
                s.append(" A round above 2x cannot come from the second rank alone: that round's one-rank run was slowed"
                        + " by something else.");
            }
        }
        s.append(where);
        return s.toString();
    }

    /** Test accuracy of 1 and 2 ranks of {@code route} after the same number of training examples (the first round). */
    public static String accuracy(SpeedupResults live, String route) {
        Table one = SpeedupResults.firstRound(live.run(SpeedupResults.SINGLE, 1));
        Table two = SpeedupResults.firstRound(live.run(route, 2));
        if (one.rowCount() == 0 || two.rowCount() == 0) return "No accuracy to compare: a run is missing.";
        int epochs = Math.min(one.rowCount(), two.rowCount());
        return accuracy(epochs, (long) one.longColumn("samples").sum(), one.doubleColumn("test_acc").getDouble(epochs - 1),
                two.doubleColumn("test_acc").getDouble(epochs - 1), one.longColumn("steps").getLong(0), two.longColumn("steps").getLong(0));
    }

    /** The sentence for accuracies {@code acc1}, {@code acc2} (fractions) after {@code epochs} epochs of {@code seen} examples. */
    static String accuracy(int epochs, long seen, double acc1, double acc2, long steps1, long steps2) {
        double d = 100 * (acc2 - acc1);
        String s = String.format(Locale.ROOT, "After %d epoch%s both runs had seen the same %d training examples. One rank"
                + " reached %.1f%% test accuracy, 2 ranks %.1f%% (%+.1f points).", epochs, epochs == 1 ? "" : "s", seen,
                100 * acc1, 100 * acc2, d);
        if (Math.abs(d) <= SAME_POINTS) {
            return s + " That is the same accuracy within a point: twice the batch with twice the learning rate learned as"
                    + " much per example.";
        }
        if (d < 0) {
            return s + String.format(Locale.ROOT, " 2 ranks are %.1f points behind. They took %d steps per epoch against %d:"
                    + " early in training, fewer and larger steps learn less per example. More epochs usually close the gap.",
                    -d, steps2, steps1);
        }
        return s + String.format(Locale.ROOT, " 2 ranks are %.1f points ahead. This little training leaves a point or two"
                + " to chance (the test set's size, the order of the examples).", d);
    }

    /**
     * Prediction against measurement: the speedup {@code predicted} from {@code t}, the live 2-rank speedup of
     * {@code route}, and where the 2-rank step's time went compared with the model's {@code t_c + t_a}.
     */
    public static String comparison(Lesson05Timing t, double predicted, SpeedupResults live, String route) {
        Row r = row(live.summary(), route, 2);
        double[] one = perStep(live.run(SpeedupResults.SINGLE, 1)), two = perStep(live.run(route, 2));
        if (r == null || one == null || two == null) return String.format(Locale.ROOT, "Your model predicts %.2fx; the live run"
                + " has no 2-rank result to compare it with.", predicted);
        return comparison(t, predicted, r.getDouble("speedup_paired"), one, two);
    }

    /**
     * The sentences for a prediction against a measured speedup; {@code one}, {@code two}: {step, compute, all-reduce}
     * seconds per step of the live 1-rank and 2-rank runs.
     */
    static String comparison(Lesson05Timing t, double predicted, double measured, double[] one, double[] two) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "You predicted %.2fx; the live run measured %.2fx.",
                predicted, measured));
        double off = measured / predicted - 1;
        if (Math.abs(off) <= MODEL_HOLDS) {
            s.append(String.format(Locale.ROOT, " The model holds within %.0f%% on this machine.", 100 * Math.abs(off)));
        } else if (off < 0) {
            s.append(String.format(Locale.ROOT, " The model was %.0f%% too optimistic.", -100 * off));
        } else {
            s.append(String.format(Locale.ROOT, " The run beat the model by %.0f%%.", 100 * off));
        }
        s.append(String.format(Locale.ROOT, " The model's 2-rank step is t_c + t_a = %.2f + %.2f ms; the live one took %.2f ms:"
                + " %.2f ms computing and %.2f ms in the all-reduce (waiting for the other rank included).",
                1e3 * t.stepSeconds(), 1e3 * t.allReduceSeconds(), 1e3 * two[0], 1e3 * two[1], 1e3 * two[2]));
        if (two[1] > (1 + MODEL_HOLDS) * t.stepSeconds()) {
            s.append(" Computing was slower with two ranks than one rank alone: they share the memory, the caches and the"
                    + " machine with every other program.");
        }
        if (two[2] > (1 + MODEL_HOLDS) * t.allReduceSeconds()) {
            s.append(" The all-reduce took longer than measured alone: a rank that arrives late makes the other wait.");
        }
        if (one[0] > (1 + MODEL_HOLDS) * t.stepSeconds()) {
            s.append(String.format(Locale.ROOT, " The live 1-rank step took %.2f ms, not t_c = %.2f ms: the machine was slower"
                    + " during the run than when t_c was timed.", 1e3 * one[0], 1e3 * t.stepSeconds()));
        } else if (one[0] < t.stepSeconds() / (1 + MODEL_HOLDS)) {
            s.append(String.format(Locale.ROOT, " The live 1-rank step took %.2f ms, not t_c = %.2f ms: the machine was busier"
                    + " when t_c was timed; run the two cells again for a fairer prediction.", 1e3 * one[0], 1e3 * t.stepSeconds()));
        }
        return s.toString();
    }

    /** The recorded GPU run: the speedup of each route on each GPU count, and NCCL's accuracy against one GPU. */
    public static String recorded(SpeedupResults rec) {
        Table s = rec.summary();
        StringBuilder out = new StringBuilder("On " + rec.machine() + " GPUs, for the same epochs (each route against its own one GPU):");
        Row single = row(s, SpeedupResults.SINGLE, 1);
        // each route's own one-GPU epoch: a ratio against a slow baseline can look better than a faster route's
        out.append(String.format(Locale.ROOT, "%n1 GPU:"));
        for (String route : oneGpuRoutes(rec)) {
            Row r = row(s, route, 1);
            if (r != null) out.append(String.format(Locale.ROOT, "%n  %-10s %.3f s an epoch", oneGpuName(route), r.getDouble("epoch_s")));
        }
        StringBuilder acc = new StringBuilder();     // NCCL's accuracy on each count, said after the speedups
        for (int n : rankCounts(s)) {
            if (n < 2) continue;
            out.append(String.format(Locale.ROOT, "%n%d GPUs:", n));
            for (String route : rec.routes()) {
                Row r = row(s, route, n);
                if (r == null) continue;
                out.append(String.format(Locale.ROOT, "%n  %-10s %.2fx as fast as one GPU%s, %.3f s an epoch", route,
                        r.getDouble("speedup_paired"), rounds(r), r.getDouble("epoch_s")));
            }
            Row nccl = row(s, "nccl", n);
            if (nccl != null) {
                acc.append(String.format(Locale.ROOT, "%s NCCL on %d GPUs %.1f%% (%+.1f points)", acc.length() == 0 ? "" : ",", n,
                        100 * nccl.getDouble("test_acc"), nccl.getDouble("acc_vs_1rank_points")));
            }
        }
        if (single != null && acc.length() > 0) {
            out.append(String.format(Locale.ROOT, "%nTest accuracy after %d epochs: one GPU %.1f%%,%s.",
                    SpeedupResults.firstRound(rec.run(SpeedupResults.SINGLE, 1)).rowCount(), 100 * single.getDouble("test_acc"), acc));
        }
        return out.toString();
    }

    /** The routes with a one-GPU run of their own: the toolkit's (NCCL and MPI share it), then each other one. */
    private static List<String> oneGpuRoutes(SpeedupResults rec) {
        List<String> routes = new ArrayList<>(List.of(SpeedupResults.SINGLE));
        for (String route : rec.routes()) if (!routes.contains(route)) routes.add(route);
        return routes;
    }

    private static String oneGpuName(String route) {
        return route.equals(SpeedupResults.SINGLE) ? "toolkit" : route;
    }

    /** {step, compute, all-reduce} seconds per step of a run (medians over its epochs), or null for none. */
    static double[] perStep(Table run) {
        if (run.rowCount() == 0) return null;
        int n = run.rowCount();
        double[] step = new double[n], comp = new double[n], comm = new double[n];
        for (int i = 0; i < n; i++) {
            double steps = run.longColumn("steps").getLong(i);
            step[i] = run.doubleColumn("epoch_s").getDouble(i) / steps;
            comm[i] = run.doubleColumn("comm_s").getDouble(i) / steps;
            comp[i] = step[i] - comm[i];
        }
        Median m = new Median();
        return new double[] {m.evaluate(step), m.evaluate(comp), m.evaluate(comm)};
    }

    private static Row row(Table summary, String route, int ranks) {
        for (int i = 0; i < summary.rowCount(); i++) {
            if (summary.stringColumn("route").get(i).equals(route) && summary.intColumn("ranks").getInt(i) == ranks) {
                Row r = summary.row(i);
                return r;
            }
        }
        return null;
    }
}
