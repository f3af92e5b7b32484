package org.mpi2nccl.lessons;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.lessons.Lesson03Training.Run;
import org.mpi2nccl.nn.Module;

/**
 * Lesson 03's side of grading by data ({@link Grading}): in a graded run every stage trains on the examples in an
 * order from the grader's seed and records a digest of the parameters after its first {@link #STEPS} steps; the grader trains one rank from the same seed in its own JVM
 * ({@link #answer}) and compares. Every right stage gives one rank's training, up to float rounding.
 */
public final class Lesson03Grading {
    /**
     * The steps whose parameters a grader compares. The lesson's check compares after all 30, from a start where that
     * is stable; from the orders a grader draws, 30 steps at the lesson's rate can amplify the float rounding between
     * one rank and several past any useful tolerance, since every step feeds the last one's rounding into the next.
     * After 5 steps a right answer could still drift now and then; after 3 the drift stays at rounding, and a wrong
     * answer (a sum for a mean, other examples, a rank's own gradient) is off from the first step.
     */
    static final int STEPS = 3;

    private Lesson03Grading() {
    }

    /** The exercises of stages 2 to 4, as the lesson's metadata names them (their answers in a graded run). */
    static final Map<String, String> STAGE_EXERCISES = Map.of("2", "average-gradients", "3", "buckets", "4", "overlap");
    private static final Map<Long, double[]> ANSWERS = new ConcurrentHashMap<>();

    /**
     * A short digest of trained parameters for a grader: the sums of 16 consecutive chunks, then the sum of squares.
     * Right training matches one rank's up to float rounding; a wrong one moves the chunks' sums.
     */
    static double[] digest(float[] params) {
        double[] d = new double[17];
        for (int i = 0; i < params.length; i++) {
            d[(int) ((long) i * 16 / params.length)] += params[i];
            d[16] += (double) params[i] * params[i];
        }
        return d;
    }

    /**
     * The digest every rank's training must give in a graded run with {@code seed}, at every stage: one rank's
     * training from that seed, computed by the grader outside the student's run (once per seed).
     */
    public static double[] answer(long seed) {
        return ANSWERS.computeIfAbsent(seed, s -> {
            Lesson03.Setup on = Lesson03.Setup.notebook();
            try (Module net = Lesson03.model(on.device())) {
                return digest(Lesson03Training.train(on, net, k -> Lesson03.share(k, 0, 1, s), () -> Lesson03Training.NOTHING,
                        new Lesson03Meter(null)).early());
            } catch (Exception e) {
                throw new IllegalStateException("the grader's one-rank training failed: " + e, e);
            }
        }).clone();
    }

    /**
     * How far a run's parameters are from the reference's: after all {@link Lesson03#STEPS} steps, or in a grader's
     * run (whose orders can make 30 steps amplify float rounding) after the steps the grader compares ({@link #STEPS}).
     */
    static double difference(Run run, Run ref) {
        return Grading.seed() != 0 ? EquivalenceCheck.relativeDifference(run.early(), ref.early())
                : EquivalenceCheck.relativeDifference(run.params(), ref.params());
    }

    /**
     * The largest {@link #difference} that is float rounding: {@link Lesson03#TOLERANCE}, or in a grader's run the
     * grader's own tolerance for the digest. A grader's orders are drawn afresh, and on some of them one rank and two
     * ranks round a pre-activation near zero to different sides of a ReLU within 3 steps; a wrong answer (a sum for a
     * mean, another rank's examples) is off by far more from the first step.
     */
    static double tolerance() {
        return Grading.seed() != 0 ? GRADED_TOLERANCE : Lesson03.TOLERANCE;
    }

    /** The digest's tolerance a grader applies to lesson 03's stages (relative). */
    public static final double GRADED_TOLERANCE = 1e-3;

    /** The steps {@link #difference} compares after. */
    static int comparedSteps() {
        return Grading.seed() != 0 ? STEPS : Lesson03.STEPS;
    }
}
