package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Lesson 07's accounting: how much optimizer state each rank keeps, with plain data parallelism (all of it, on every
 * rank) and with ZeRO stage 1 (one slice of ceil(n / N) parameters' worth), and how many bytes a step sends either way.
 * Everything here is arithmetic on the parameter count, so it also covers models far larger than this machine holds.
 */
public final class Lesson07Costs {
    /** A model of 1.5 billion parameters, the size of GPT-2 XL. */
    public static final long LARGE_MODEL = 1_500_000_000L;
    /** Numbers of ranks on the charts. */
    public static final int[] RANKS = {1, 2, 4, 8, 16, 32, 64};

    private Lesson07Costs() {
    }

    /**
     * Bytes of optimizer state one rank keeps for a model of {@code params} parameters with {@code states} float32
     * values per parameter (1 for SGD's momentum, 2 for Adam's two moments), on {@code ranks} ranks.
     */
    public static long stateBytes(long params, int states, int ranks, boolean sharded) {
        long perRank = sharded ? (params + ranks - 1) / ranks : params;
        return perRank * states * 4L;
    }

    /**
     * Optimizer state per rank against the number of ranks, plain and sharded, for SGD with momentum and Adam;
     * {@code unitBytes} and {@code unit} say how the y axis counts (1024 and "KiB", 1e9 and "GB").
     */
    public static XYChart stateChart(String model, long params, double unitBytes, String unit) {
        XYChart c = new XYChartBuilder().width(820).height(380).title("Optimizer state per rank: " + model)
                .xAxisTitle("number of ranks N").yAxisTitle("optimizer state per rank (" + unit + ")").build();
        List<Double> x = new ArrayList<>();                 // log2 N, so that 1, 2, 4, ... lie evenly spaced
        for (int r : RANKS) x.add(Math.log(r) / Math.log(2));
        String[] names = {"SGD momentum", "Adam"};
        for (int states = 1; states <= 2; states++) {
            for (boolean sharded : new boolean[] {false, true}) {
                List<Double> y = new ArrayList<>();
                for (int r : RANKS) y.add(stateBytes(params, states, r, sharded) / unitBytes);
                c.addSeries(names[states - 1] + (sharded ? ", ZeRO-1" : ", plain DP"), x, y);
            }
        }
        c.setCustomXAxisTickLabelsFormatter(v -> Math.abs(v - Math.rint(v)) < 1e-9 ? Long.toString(1L << Math.round(v)) : "");
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        return c;
    }

    /** Floats one rank sends per step in a ring all-reduce of {@code n} floats on {@code ranks} ranks: 2 (N - 1) / N x n. */
    public static double allReduceFloats(long n, int ranks) {
        return 2.0 * (ranks - 1) / ranks * n;
    }

    /** Floats one rank sends per step in the sharded step: reduce-scatter and all-gather, (N - 1) slices each. */
    public static long shardedFloats(long n, int ranks) {
        return 2L * (ranks - 1) * ((n + ranks - 1) / ranks);
    }

    /** The communication of one step both ways, in a sentence computed from the numbers. */
    public static String communication(long n, int ranks) {
        if (ranks == 1) return "On one rank nothing is sent either way.";
        double plain = allReduceFloats(n, ranks);
        long sharded = shardedFloats(n, ranks);
        return String.format(Locale.ROOT, "Per step each of the %d ranks sends about %.0f floats (%.1f KB) in the all-reduce of"
                        + " plain data parallelism, and %d floats (%.1f KB) in the reduce-scatter plus all-gather of ZeRO-1:"
                        + " %s.", ranks, plain, plain * 4 / 1e3, sharded, sharded * 4 / 1e3,
                Math.abs(sharded - plain) < ranks * 2 ? "the same, up to the padding" : "different by " + Math.round(sharded - plain) + " floats");
    }

    /** The saving on {@code ranks} ranks for {@code params} parameters of Adam, in a sentence. */
    public static String saving(String model, long params, int ranks) {
        double plain = stateBytes(params, 2, ranks, false) / 1e9, sharded = stateBytes(params, 2, ranks, true) / 1e9;
        return String.format(Locale.ROOT, "%s with Adam (two float32 moments per parameter): %.2f GB of optimizer state on every"
                + " rank with plain data parallelism, %.2f GB per rank with ZeRO-1 on %d ranks (%.0fx less).",
                model, plain, sharded, ranks, plain / sharded);
    }
}
