package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpi2nccl.autograd.Tensor;

/**
 * What a wrong answer of lesson 03 looks like, in words: shares that overlap or miss examples, gradients summed
 * instead of averaged, tensors whose gradient was never combined (a bucket left out), a bucket plan that leaves a
 * parameter out. Each method returns null when it finds nothing wrong.
 */
final class Lesson03Diagnosis {
    /** Relative difference under which two gradients of the first step count as equal (float rounding is ~1e-6). */
    static final double SAME = 1e-4;

    private Lesson03Diagnosis() {
    }

    /** Shares {@code s[step][rank]} of {@code order} (examples 0 .. n-1), {@code perRank} examples each. */
    static String shares(int[][][] s, int[] order, int perRank) {
        int steps = s.length, size = s[0].length, batch = perRank * size, n = order.length;
        for (int k = 0; k < steps; k++) {
            for (int r = 0; r < size; r++) {
                int[] mine = s[k][r];
                if (mine == null) return "rank " + r + "'s share at step " + k + " is null: return an int[] of " + perRank + " indices.";
                if (mine.length != perRank) {
                    return "rank " + r + "'s share at step " + k + " has " + mine.length + " examples; each of the " + size
                            + " ranks takes perRank = " + batch + " / " + size + " = " + perRank + ".";
                }
                for (int e : mine) {
                    if (e < 0 || e >= n) return "rank " + r + " takes example " + e + " at step " + k + ", but the examples are 0 .. "
                            + (n - 1) + ": take the values of order[], not positions beyond it.";
                }
            }
        }
        if (size > 1 && sameEverywhere(s, true)) {
            return "every rank got the same examples (rank 0 and rank 1 both take " + head(s[0][0]) + " at step 0): the shares"
                    + " overlap, so each of these examples counts " + size + " times and the rest of the batch is missing."
                    + " Use rank to give each rank a different part of the step's batch.";
        }
        if (steps > 1 && sameEverywhere(s, false)) {
            return "every step got the same examples (rank 0 takes " + head(s[0][0]) + " at steps 0 and 1): the step number is"
                    + " not used, so training sees the first batch over and over. Step k's batch is order[k*" + batch
                    + "] .. order[k*" + batch + " + " + (batch - 1) + "].";
        }
        Map<Integer, Integer> stepOf = new HashMap<>();
        for (int p = 0; p < n; p++) stepOf.put(order[p], p / batch);
        for (int k = 0; k < steps; k++) {
            Map<Integer, Integer> owner = new HashMap<>();
            for (int r = 0; r < size; r++) {
                for (int e : s[k][r]) {
                    Integer before = owner.put(e, r);
                    if (before != null) {
                        return "at step " + k + " example " + e + " is in the share of rank " + before + (before == r ? " twice"
                                : " and of rank " + r) + ": overlapping shares count it twice (duplicated examples) and leave out"
                                + " another example of the batch. The shares of one step must be disjoint.";
                    }
                    int belongs = stepOf.get(e);
                    if (belongs != k) {
                        return "at step " + k + " rank " + r + " takes example " + e + ", which belongs to the batch of step " + belongs
                                + " of one rank with batch " + batch + ". Step k's batch is order[k*" + batch + "] .. order[k*"
                                + batch + " + " + (batch - 1) + "]; the ranks split it.";
                    }
                }
            }
        }
        return null;
    }

    private static boolean sameEverywhere(int[][][] s, boolean acrossRanks) {
        for (int k = 0; k < (acrossRanks ? s.length : 1); k++) {
            for (int r = 0; r < s[0].length; r++) {
                int[] other = acrossRanks ? s[k][(r + 1) % s[0].length] : s[1][r];
                if (!Arrays.equals(s[k][r], other)) return false;
            }
        }
        return true;
    }

    private static String head(int[] v) {
        return Arrays.toString(Arrays.copyOf(v, Math.min(3, v.length))).replace("]", v.length > 3 ? ", ...]" : "]");
    }

    /** A bucket plan: every parameter exactly once, no bucket over {@code bucketBytes} unless it holds one tensor. */
    static String plan(List<List<Tensor>> plan, List<Tensor> params, List<String> names, long bucketBytes) {
        if (plan == null || plan.isEmpty()) return "the plan has no buckets: put every parameter into one.";
        Map<Tensor, Integer> seen = new IdentityHashMap<>();
        for (int b = 0; b < plan.size(); b++) {
            List<Tensor> bucket = plan.get(b);
            if (bucket == null || bucket.isEmpty()) return "bucket " + b + " is empty: every bucket holds at least one tensor.";
            long bytes = 0;
            for (Tensor p : bucket) {
                int i = indexOf(params, p);
                if (i < 0) return "bucket " + b + " holds a tensor that is not a parameter of the model.";
                Integer before = seen.put(p, b);
                if (before != null) return names.get(i) + " is in bucket " + before + " and in bucket " + b
                        + ": its gradient would be averaged twice. Put each parameter in one bucket.";
                bytes += 4 * p.size();
            }
            if (bucket.size() > 1 && bytes > bucketBytes) {
                return "bucket " + b + " holds " + bytes + " bytes, more than bucketBytes = " + bucketBytes
                        + ": start a new bucket when the next tensor would not fit (a tensor larger than that gets a bucket of its own).";
            }
        }
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) if (!seen.containsKey(params.get(i))) missing.add(names.get(i));
        if (!missing.isEmpty()) return "no bucket holds " + String.join(", ", missing) + ": a bucket left out leaves these"
                + " parameters untouched by the all-reduce. Every parameter must be in one bucket.";
        int fewest = fewestBuckets(params, bucketBytes);
        if (plan.size() > fewest) return plan.size() + " buckets, where filling each up to " + bucketBytes + " bytes in order gives "
                + fewest + ": fewer, larger messages are the point. Add tensors to the current bucket while they fit.";
        return null;
    }

    private static int fewestBuckets(List<Tensor> params, long bucketBytes) {
        int n = 0;
        long bytes = 0;
        for (Tensor p : params) {
            if (n == 0 || bytes + 4 * p.size() > bucketBytes) {
                n++;
                bytes = 0;
            }
            bytes += 4 * p.size();
        }
        return n;
    }

    private static int indexOf(List<Tensor> params, Tensor p) {
        for (int i = 0; i < params.size(); i++) if (params.get(i) == p) return i;
        return -1;
    }

    /**
     * Compares the first step's gradients after the stage ({@code synced}) with the whole batch's ({@code reference})
     * and names what happened to each tensor. {@code hint} is said of tensors that kept this rank's own gradient.
     */
    static String gradients(List<String> names, float[][] local, float[][] synced, float[][] reference, int size, String hint) {
        Map<String, List<String>> kinds = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            String kind;
            if (synced[i] == null || synced[i].length != reference[i].length) kind = "missing";
            else if (close(synced[i], reference[i], 1)) continue;
            else if (size > 1 && close(synced[i], reference[i], size)) kind = "sum";
            else if (size > 1 && local[i] != null && close(synced[i], local[i], 1)) kind = "local";
            else if (maxAbs(synced[i]) == 0) kind = "zero";
            else if (size > 1 && close(synced[i], reference[i], 1.0 / size)) kind = "twice";
            else kind = "other";
            kinds.computeIfAbsent(kind, x -> new ArrayList<>()).add(names.get(i));
        }
        if (kinds.isEmpty()) return null;
        int all = names.size();
        if (count(kinds, "sum") == all) {
            return "every gradient is " + size + " times the mean: the gradients were summed but not divided, a step " + size
                    + " times too large. Divide the sum by the number of ranks (comm.size()), or reduce with Reduction.AVG.";
        }
        if (count(kinds, "local") == all) {
            return "every gradient is still this rank's own (from its " + "share only): the gradients were not combined. " + hint;
        }
        List<String> parts = new ArrayList<>();
        add(parts, kinds, "local", "kept this rank's own gradient, not the mean (untouched by the all-reduce). " + hint);
        add(parts, kinds, "sum", "are " + size + " times the mean: summed but not divided by comm.size()");
        add(parts, kinds, "twice", "are the mean divided by " + size + " once more: divided twice (Reduction.AVG already divides)");
        add(parts, kinds, "zero", "are all zeros: nothing was copied back into them, or from an empty buffer");
        add(parts, kinds, "missing", "have no gradient of the right size after your code");
        add(parts, kinds, "other", "differ from the whole batch's gradient: each must become the mean over the ranks of p.grad()");
        return String.join(" ", parts);
    }

    private static int count(Map<String, List<String>> kinds, String kind) {
        return kinds.getOrDefault(kind, Collections.emptyList()).size();
    }

    private static void add(List<String> parts, Map<String, List<String>> kinds, String kind, String what) {
        List<String> n = kinds.get(kind);
        if (n != null) parts.add("After step 1, " + String.join(", ", n) + " " + what + (what.endsWith(".") ? "" : "."));
    }

    private static boolean close(float[] a, float[] b, double factor) {
        double diff = 0, scale = 0;
        for (int i = 0; i < a.length; i++) {
            diff = Math.max(diff, Math.abs(a[i] - factor * b[i]));
            scale = Math.max(scale, Math.abs(factor * b[i]));
        }
        return diff <= SAME * Math.max(scale, 1e-12);
    }

    private static double maxAbs(float[] a) {
        double m = 0;
        for (float v : a) m = Math.max(m, Math.abs(v));
        return m;
    }

    static String fmt(double x) {
        return String.format(Locale.ROOT, "%.1e", x);
    }

    /** Every share is a non-empty array of examples of the data set (so that a batch can be made of it). */
    static boolean trainable(int[][][] s, int n) {
        for (int[][] step : s) {
            for (int[] mine : step) {
                if (mine == null || mine.length == 0) return false;
                for (int e : mine) if (e < 0 || e >= n) return false;
            }
        }
        return true;
    }
}
