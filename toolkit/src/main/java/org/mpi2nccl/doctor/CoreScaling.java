package org.mpi2nccl.doctor;

import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.Table;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * How much faster a fixed piece of arithmetic gets with 1, 2, ... threads on this machine: the speedup flattens
 * at the number of cores, which is also how many MPI ranks can truly run at once. Lesson 00 plots it.
 */
public final class CoreScaling {
    /**
     * Square roots summed in total, whatever the number of threads: enough that starting the threads is small
     * against it, little enough for a lesson cell to time every thread count several times.
     */
    static final long WORK = 20_000_000L;

    private CoreScaling() {
    }

    /**
     * Times {@link #WORK} split over 1..maxThreads threads (best of {@code repeats}); a row per thread count.
     * A warm-up comes first: the first runs of {@link #sumOfRoots} are interpreted, then compiled by the JIT, and
     * timing them would make the one-thread run slow and the speedups larger than the cores allow.
     */
    public static Table measure(int maxThreads, int repeats) {
        if (maxThreads < 1 || repeats < 1) {
            throw new IllegalArgumentException("need at least 1 thread and 1 repeat (got " + maxThreads + ", " + repeats + ")");
        }
        warmUp(maxThreads);
        IntColumn threads = IntColumn.create("threads");
        DoubleColumn seconds = DoubleColumn.create("seconds");
        DoubleColumn speedup = DoubleColumn.create("speedup");
        double oneThread = 0;
        for (int t = 1; t <= maxThreads; t++) {
            double best = Double.MAX_VALUE;
            for (int r = 0; r < repeats; r++) {
                best = Math.min(best, timeOnce(t));
            }
            if (t == 1) {
                oneThread = best;
            }
            threads.append(t);
            seconds.append(best);
            speedup.append(oneThread / best);
        }
        return Table.create("core scaling", threads, seconds, speedup);
    }

    /** Speedup against threads, with the ideal (as many times faster as threads, up to the cores) beside it. */
    public static XYChart chart(Table scaling, int cores) {
        XYChart chart = new XYChartBuilder().width(560).height(340)
                .title("Speedup of a fixed amount of arithmetic (" + cores + " cores)")
                .xAxisTitle("threads").yAxisTitle("speedup over 1 thread").build();
        double[] t = scaling.intColumn("threads").asDoubleArray();
        chart.addSeries("measured", t, scaling.doubleColumn("speedup").asDoubleArray());
        double[] best = java.util.Arrays.stream(t).map(x -> Math.min(x, cores)).toArray();
        XYSeries ideal = chart.addSeries("ideal: min(threads, cores)", t, best);
        ideal.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
        return chart;
    }

    /** Runs the work untimed on one thread and on {@code maxThreads}, until the JIT has compiled the loop. */
    static void warmUp(int maxThreads) {
        timeOnce(1);
        timeOnce(maxThreads);
        timeOnce(1);
    }

    private static double timeOnce(int threads) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long t0 = System.nanoTime();
            List<Future<Double>> parts = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                long from = WORK * i / threads;
                long to = WORK * (i + 1) / threads;
                parts.add(pool.submit(() -> sumOfRoots(from, to)));
            }
            double total = 0;
            for (Future<Double> f : parts) {
                total += f.get();
            }
            if (total <= 0) {
                throw new IllegalStateException("the sum cannot be zero");
            }
            return (System.nanoTime() - t0) / 1e9;
        } catch (Exception e) {
            throw new IllegalStateException("timing failed: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    static double sumOfRoots(long from, long to) {
        double s = 0;
        for (long i = from; i < to; i++) {
            s += Math.sqrt(i);
        }
        return s;
    }
}
