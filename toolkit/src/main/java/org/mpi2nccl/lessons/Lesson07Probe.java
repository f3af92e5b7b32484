package org.mpi2nccl.lessons;

import java.util.Locale;
import org.mpi2nccl.comm.CollectiveMismatchException;
import org.mpi2nccl.comm.CollectiveTimeoutException;

/**
 * The probe of lesson 07's check: two sharded steps on small arrays whose right answer, and the answers of the usual
 * mistakes, are computed here without any communication (every rank's gradients are a formula of its rank). The
 * length is 6 x size - 1, so it never divides by the number of ranks (except on one rank) and the last slice ends
 * in one element of padding.
 *
 * @param threw whether the student's step threw (then the ranks skip the training that would call it again)
 * @param hint  what is wrong, or null when the probe's parameters are right
 */
record Lesson07Probe(boolean threw, String hint) {
    private static final int STEPS = 2;

    /** Runs the student's step twice on this rank's probe arrays and explains what came out. */
    static Lesson07Probe run(int rank, int size, Lesson07.FlatStep step) {
        int n = length(size), shard = Lesson07.shardLength(n, size);
        float[] params = toFloat(start(n));
        float[] velocity = new float[shard];
        try {
            for (int t = 0; t < STEPS; t++) step.step(params, toFloat(grads(rank, t, n)), velocity);
        } catch (RuntimeException e) {
            return new Lesson07Probe(true, explainThrown(e, shard));
        }
        return new Lesson07Probe(false, explain(rank, size, params));
    }

    /**
     * A grader's run ({@link Grading#seed}): the same two steps on arrays nobody saw, from the grading's seed, and the
     * parameters after them recorded for the grader, which computes the right ones itself ({@link #gradingAnswer}).
     * Nothing is recorded when the step throws: the grader then has no answer from this rank.
     */
    static void graded(int rank, int size, Lesson07.FlatStep step, long seed) {
        int n = gradingLength(size, seed), shard = Lesson07.shardLength(n, size);
        float[] params = toFloat(gradingStart(n, seed));
        float[] velocity = new float[shard];
        try {
            for (int t = 0; t < STEPS; t++) step.step(params, toFloat(gradingGrads(rank, t, n, seed)), velocity);
        } catch (RuntimeException e) {
            return;
        }
        double[] answer = new double[n];
        for (int i = 0; i < n; i++) answer[i] = params[i];
        Grading.record("sharded-step", answer);
    }

    /** The parameters every rank must hold after the grading's two steps: momentum SGD on the mean gradient. */
    public static double[] gradingAnswer(int size, long seed) {
        int n = gradingLength(size, seed);
        double[] p = gradingStart(n, seed), v = new double[n];
        for (int t = 0; t < STEPS; t++) {
            double[] g = new double[n];
            for (int q = 0; q < size; q++) {
                double[] gq = gradingGrads(q, t, n, seed);
                for (int i = 0; i < n; i++) g[i] += gq[i] / size;
            }
            for (int i = 0; i < n; i++) {
                v[i] = Lesson07.MOMENTUM * v[i] + g[i];
                p[i] -= Lesson07.LR * v[i];
            }
        }
        return p;
    }

    private static int gradingLength(int size, long seed) {
        return size + 1 + new java.util.Random(seed).nextInt(7 * size + 1);
    }

    private static double[] gradingStart(int n, long seed) {
        java.util.Random r = new java.util.Random(seed ^ 0x5DEECE66DL);
        double[] p = new double[n];
        for (int i = 0; i < n; i++) p[i] = (float) (2 * r.nextGaussian());   // floats, as the student's arrays hold them
        return p;
    }

    private static double[] gradingGrads(int q, int t, int n, long seed) {
        java.util.Random r = new java.util.Random(seed * 31 + 7L * q + t);
        double[] g = new double[n];
        for (int i = 0; i < n; i++) g[i] = (float) (0.5 * r.nextGaussian());
        return g;
    }

    /** The probe's length for {@code size} ranks. */
    static int length(int size) {
        return 6 * size - 1;
    }

    /** What an exception from the student's step means. */
    static String explainThrown(RuntimeException e, int shard) {
        if (e instanceof UnsupportedOperationException) {
            return "not written yet (" + e.getMessage() + ").";
        }
        if (e instanceof ArrayIndexOutOfBoundsException) {
            return "an index went past the end of an array (" + e.getMessage() + "). Did each rank update the whole"
                    + " model? velocity holds only your slice's momentum (velocity.length = " + shard + " here): update only your slice"
                    + " params[start .. start + shard) (and not past the end of params), with velocity[i - start].";
        }
        if (e instanceof CollectiveMismatchException || e instanceof CollectiveTimeoutException) {
            return "the ranks did not call the same collectives in the same order: " + e.getMessage() + " Does your step"
                    + " fail, or take another path, on some ranks only? (velocity[start + i] works on rank 0 alone:"
                    + " velocity holds only your slice (velocity.length = " + shard + " here), so use velocity[i - start].)";
        }
        return "your step threw " + e + ".";
    }

    private static String explain(int rank, int size, float[] got) {
        int n = got.length, shard = Lesson07.shardLength(n, size);
        int start = rank * shard, end = Math.min(n, start + shard);
        double[] right = simulate(rank, size, "avg");
        if (matches(got, right, 0, n)) return null;
        String shape = String.format(Locale.ROOT, "In a probe with %d parameters on %d ranks (slices of %d): ", n, size, shard);
        if (matches(got, start(n), 0, n)) {
            return shape + "params did not change. Write the all-gathered parameters back into params (the first n of them).";
        }
        if (size > 1 && matches(got, simulate(rank, size, "sum"), 0, n)) {
            return shape + "the steps are " + size + " times too large: the gradients were summed but not divided by"
                    + " the number of ranks. Reduce-scatter with Reduction.AVG, or divide by size.";
        }
        if (size > 1 && matches(got, simulate(rank, size, "local"), 0, n)) {
            return shape + "each rank used only its own gradient: the gradients were not combined. Reduce-scatter them first.";
        }
        if (matches(got, meanGradient(size, STEPS - 1, n, false), 0, n) || matches(got, meanGradient(size, STEPS - 1, n, true), 0, n)) {
            return shape + "params hold the averaged gradients: you all-gathered the gradients instead of the parameters."
                    + " All-gather the updated slice of the parameters.";
        }
        int tail = n / size * size;
        if (tail < n && matches(got, right, 0, tail)) {
            return shape + "everything is right except the last " + (n - tail) + " parameters [" + tail + ", " + n + "):"
                    + " slices of n / size = " + n / size + " miss the tail. Use slices of ceil(n / size) = " + shard
                    + " (velocity.length) and pad the gradients with zeros to size x " + shard + " floats.";
        }
        if (size > 1 && matches(got, right, start, end) && (!matches(got, right, 0, start) || !matches(got, right, end, n))) {
            boolean unchanged = matches(got, start(n), 0, start) && matches(got, start(n), end, n);
            return shape + "only your own slice [" + start + ", " + end + ") is right" + (unchanged
                    ? ": the other ranks' slices never arrived. All-gather the updated slices so that every rank has the"
                    + " whole model."
                    : ". The other slices changed, so something was gathered, but not the other ranks' updated"
                    + " parameters: gather the updated slices after the update (the other ranks' checks say whether"
                    + " their own updates are right).");
        }
        int first = 0;
        while (first < n && close(got[first], right[first])) first++;
        int last = n - 1;
        while (last > first && close(got[last], right[last])) last--;
        return shape + String.format(Locale.ROOT, "parameters %d to %d are wrong (parameter %d: %.5f, expected %.5f)."
                        + " Rank q must update exactly [q x %d, (q + 1) x %d) and no rank another's slice: do the slices"
                        + " overlap or leave a gap?", first, last, first, got[first], right[first], shard, shard);
    }

    /** The parameters before the probe, the same on every rank. */
    static double[] start(int n) {
        double[] p = new double[n];
        for (int i = 0; i < n; i++) p[i] = 1 + 0.1 * i;
        return p;
    }

    /** Rank {@code q}'s gradient at probe step {@code t}: different per rank, per step and per element. */
    static double[] grads(int q, int t, int n) {
        double[] g = new double[n];
        for (int i = 0; i < n; i++) g[i] = (q + 1) * 0.05 * ((i % 7) + 1 + t) * (i % 2 == 0 ? 1 : -1);
        return g;
    }

    /** The mean (or sum) over the ranks of step {@code t}'s gradients. */
    private static double[] meanGradient(int size, int t, int n, boolean sum) {
        double[] m = new double[n];
        for (int q = 0; q < size; q++) {
            double[] g = grads(q, t, n);
            for (int i = 0; i < n; i++) m[i] += sum ? g[i] : g[i] / size;
        }
        return m;
    }

    /**
     * The parameters after the probe's steps with momentum SGD on every element, the gradient being the mean over the
     * ranks ("avg", the right answer), their sum ("sum") or this rank's own ("local").
     */
    static double[] simulate(int rank, int size, String how) {
        int n = length(size);
        double[] p = start(n), v = new double[n];
        for (int t = 0; t < STEPS; t++) {
            double[] g = switch (how) {
                case "avg" -> meanGradient(size, t, n, false);
                case "sum" -> meanGradient(size, t, n, true);
                default -> grads(rank, t, n);
            };
            for (int i = 0; i < n; i++) {
                v[i] = Lesson07.MOMENTUM * v[i] + g[i];
                p[i] -= Lesson07.LR * v[i];
            }
        }
        return p;
    }

    private static boolean matches(float[] got, double[] want, int from, int to) {
        for (int i = from; i < to; i++) if (!close(got[i], want[i])) return false;
        return true;
    }

    private static boolean close(float got, double want) {
        return Math.abs(got - want) <= 1e-4 * Math.max(1, Math.abs(want));
    }

    private static float[] toFloat(double[] a) {
        float[] f = new float[a.length];
        for (int i = 0; i < a.length; i++) f[i] = (float) a[i];
        return f;
    }
}
