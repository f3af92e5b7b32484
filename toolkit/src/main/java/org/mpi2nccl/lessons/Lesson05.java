package org.mpi2nccl.lessons;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleBinaryOperator;
import org.mpi2nccl.bench.ProgressReporter;
import org.mpi2nccl.bench.SpeedupConfig;
import org.mpi2nccl.bench.SpeedupExperiment;
import org.mpi2nccl.bench.SpeedupResults;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.parallel.gpu.Route;
import org.mpi2nccl.kernel.output.Progress;

/**
 * Lesson 05, the speedup of data-parallel training over one rank. The student predicts the 2-rank speedup from two
 * times measured here ({@link Lesson05Timing}), then measures it with a live run (CPU ranks here; GPUs where there
 * are some), and reads the recorded run on several GPUs of {@code results/gpu-scaling/} ({@link Recorded}). The sentences about the
 * numbers come from {@link Lesson05Text}.
 */
public final class Lesson05 {
    /**
     * Where the recorded results of scripts/gpu/multi-gpu.sh are kept in the repository; the toolkit carries the
     * files the lessons read ({@link Recorded}), so a lesson finds them from any folder.
     */
    public static final String RECORDED = Recorded.GPU_SCALING.folder();

    /**
     * Rounds of the live run: each runs 1 rank, then 2, so that a machine busy with something else for a while
     * slows both alike; three give a lowest, a median and a highest speedup. A short run ({@link LessonLength}) has one.
     */
    public static final int ROUNDS = 3;

    private Lesson05() {
    }

    /**
     * The live experiment. GPUs: the project's default. No GPU: 1 and 2 CPU ranks over MPI, each rank on one core,
     * after the CPU warm-up ({@link SpeedupConfig#CPU_WARMUP_STEPS}: on one core per rank the JIT compiles beside the
     * ranks until the step's code is compiled). 6000 examples for 3 epochs keep both versions of the lesson short on
     * a machine of few cores, while an epoch still lasts long against the timer's jitter. With so little training
     * 2 ranks (half the steps, twice the batch) may end behind one rank in accuracy: the lesson's sentence about
     * accuracy says so from the numbers.
     */
    public static SpeedupExperiment liveExperiment() {
        return liveExperiment(LessonLength.current());
    }

    /**
     * The live experiment at a length: a short run has one round of 2 epochs on 2000 examples after a 30-step
     * warm-up, just enough to run every cell's code; its numbers are rough, and {@link #describe} says so.
     */
    static SpeedupExperiment liveExperiment(LessonLength length) {
        int rounds = length.pick(ROUNDS, 1);
        if (Cuda.isAvailable() && Cuda.deviceCount() > 0) {
            SpeedupExperiment e = SpeedupExperiment.defaults();
            if (length == LessonLength.SHORT) {
                e.config().epochs = 2;
                e.config().trainExamples = 8192;
                e.config().warmupSteps = 100;
            }
            return e.rounds(rounds);
        }
        SpeedupConfig c = SpeedupExperiment.defaults().config();
        c.trainExamples = length.pick(6000, 2000);
        c.testExamples = length.pick(2000, 500);
        c.epochs = length.pick(3, 2);
        if (length == LessonLength.SHORT) c.warmupSteps = 30;
        return new SpeedupExperiment(c, List.of(Route.MPI), List.of(1, 2)).rounds(rounds);
    }

    /** The experiment's settings in a line, and, on a short run, a note that its numbers are rough. */
    public static String describe(SpeedupExperiment e) {
        String note = LessonLength.current().note();
        return e.config().describe() + (note.isEmpty() ? "" : "\n" + note);
    }

    /** The route whose 2-rank run the lesson compares with one rank: NCCL on GPUs, MPI on CPUs. */
    public static String route(SpeedupExperiment e) {
        return e.routes().contains(Route.NCCL) ? Route.NCCL.label() : Route.MPI.label();
    }

    /** A {@link ProgressReporter} that draws the kernel's in-cell progress bar, one run at a time (a finished run's goes). */
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
                    p.clear();
                }
            };
        };
    }

    /** The folder of recorded results {@code name} (e.g. "fashion-vs-ddp"), in this checkout or the toolkit; null if absent. */
    public static Path recordedFolder(String name) {
        Path f = Recorded.GPU_SCALING.file(name + "/epochs.csv");
        return f == null ? null : f.getParent();
    }

    /** Recorded results, or null (with the reason printed) when neither this checkout nor the toolkit has them. */
    public static SpeedupResults recorded(String name) throws IOException {
        Path f = recordedFolder(name);
        if (f == null) {
            System.out.println(Recorded.GPU_SCALING.missing(name + "/epochs.csv"));
            return null;
        }
        SpeedupResults r = SpeedupResults.fromCsv(List.of(f.resolve("epochs.csv")));
        System.out.println(Recorded.GPU_SCALING.source(name + "/epochs.csv") + ". " + r.settings());
        return r;
    }

    /** The reference model: one rank takes S steps of t_c; two ranks S/2 steps of t_c + t_a (nothing overlaps). */
    static double reference(double tc, double ta) {
        return 2 * tc / (tc + ta);
    }

    /** Models a student may write by mistake, each with what it gets wrong. */
    private static final List<Map.Entry<DoubleBinaryOperator, String>> WRONG = List.of(
            Map.entry((tc, ta) -> 2, "your model gives 2x whatever t_a is: it leaves the all-reduce out. Every 2-rank"
                    + " step waits t_a for it."),
            Map.entry((tc, ta) -> tc / (tc + ta), "that is one step's time ratio. But a 2-rank step trains twice the"
                    + " examples, so an epoch takes half as many steps."),
            Map.entry((tc, ta) -> (tc + ta) / (2 * tc), "upside down: speedup = one rank's time / two ranks' time for the"
                    + " same examples."),
            Map.entry((tc, ta) -> 2 * tc / (tc / 2 + ta), "you halved the compute. Each rank keeps its batch of b examples,"
                    + " so a 2-rank step still computes for t_c (t_c/2 would be one batch split in two)."),
            // the same function as t_c / (t_c/2 + t_a): the compute halved, or the all-reduce counted twice
            Map.entry((tc, ta) -> 2 * tc / (tc + 2 * ta), "a 2-rank step computes for t_c (each rank keeps its batch of b"
                    + " examples) and waits t_a once (t_a is already the whole all-reduce on 2 ranks): count it once."),
            Map.entry((tc, ta) -> 2 * tc / (tc - ta), "communication adds time to a step; it was subtracted."),
            Map.entry((tc, ta) -> 2 * tc / Math.max(tc, ta), "that assumes the all-reduce hides behind the compute. Here"
                    + " all gradients fit in one bucket, complete only when backward ends: nothing overlaps."));

    /** (t_c, t_a) pairs, in ms, on which a model is compared with the reference: apart, equal, free communication. */
    private static final double[][] PROBES = {{10, 2}, {3, 6}, {8, 0}, {5, 5}};

    /**
     * Checks the student's model of the 2-rank speedup, {@code model(t_c, t_a)}, against the reference on the
     * measured times and on {@link #PROBES}; a right model gets its prediction compared with the live run.
     */
    public static Check checkModel(DoubleBinaryOperator model, Lesson05Timing t, SpeedupResults live, String route) {
        try {
            GradedFunctions.speedupModel(model);   // a grader's run: the grading's own times, recorded
        } catch (RuntimeException e) {
            // no answer recorded: the grader says so; the check below explains the error
        }
        double tc = 1e3 * t.stepSeconds(), ta = 1e3 * t.allReduceSeconds();
        double mine;
        try {
            mine = model.applyAsDouble(tc, ta);
        } catch (UnsupportedOperationException e) {
            return Check.wrong("predictedSpeedup: not written yet", "return the speedup your model predicts from t_c and t_a.");
        } catch (RuntimeException e) {
            return Check.wrong("predictedSpeedup threw " + e, "it must return a number for any t_c > 0, t_a >= 0.");
        }
        if (Double.isNaN(mine)) {
            return Check.wrong("predictedSpeedup: not written yet", "it returns NaN: return the speedup your model predicts.");
        }
        String title = String.format(Locale.ROOT, "predicted speedup for this machine: %.3fx", mine);
        if (agrees(model, Lesson05::reference, tc, ta)) {
            return Check.right(title, Lesson05Text.comparison(t, mine, live, route));
        }
        for (Map.Entry<DoubleBinaryOperator, String> w : WRONG) {
            if (agrees(model, w.getKey(), tc, ta)) return Check.wrong(title + " is not it", w.getValue());
        }
        // the first times where the model is off, and what it gave there: never the right speedup, which is the answer
        double[] p = {tc, ta};
        boolean rightHere = close(apply(model, tc, ta), reference(tc, ta));
        for (double[] probe : PROBES) {
            if (!rightHere) break;
            if (!close(apply(model, probe[0], probe[1]), reference(probe[0], probe[1]))) {
                p = probe;
                break;
            }
        }
        return Check.wrong(title + " is not it", String.format(Locale.ROOT, "for t_c = %.3g ms and t_a = %.3g ms your model"
                + " gives %.3fx, which is not the speedup of 2 ranks over 1%s. Write one epoch's time both ways: one rank"
                + " takes S steps, two ranks S/2.", p[0], p[1], apply(model, p[0], p[1]), rightHere ? " (on this machine's"
                + " times it is right: a model must hold for any times)" : ""));
    }

    /** Whether two models give the same speedup on the measured times and on every probe. */
    private static boolean agrees(DoubleBinaryOperator a, DoubleBinaryOperator b, double tc, double ta) {
        if (!close(apply(a, tc, ta), b.applyAsDouble(tc, ta))) return false;
        for (double[] p : PROBES) if (!close(apply(a, p[0], p[1]), b.applyAsDouble(p[0], p[1]))) return false;
        return true;
    }

    private static double apply(DoubleBinaryOperator m, double tc, double ta) {
        try {
            return m.applyAsDouble(tc, ta);
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }

    private static boolean close(double a, double b) {
        if (a == b) return true;             // infinities too: a wrong model may divide by zero on a probe
        return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
    }
}
