package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Lesson 02: explains a wrong ring all-reduce. The checks also run the student's function on labelled numbers:
 * rank q's element i is 4^q + 4^p (i + 1). Any sum of such numbers, each counted at most 3 times, can be read
 * back: the low base-4 digits say how many times each rank was added, the rest which element the numbers came from.
 * So the explanation can say, segment by segment, "ranks 2 and 3 are missing" (a missing step), "rank 1 counted
 * twice" (a double count), "these numbers belong to segment 1" (a wrong neighbour or segment number), or "still the
 * partial sum" (an all-gather that did not run).
 */
final class Lesson02Diagnosis {
    private enum Kind { RIGHT, NOT_A_SUM, MOVED, DOUBLE, PARTIAL }

    /** What segment {@code segment} holds, told by its first wrong element ({@code element}). */
    private record State(int segment, Kind kind, int element, int[] counts, int source) {
        List<Integer> ranks(int times) {
            List<Integer> out = new ArrayList<>();
            for (int q = 0; q < counts.length; q++) {
                if (times == 2 ? counts[q] >= 2 : counts[q] == times) {
                    out.add(q);
                }
            }
            return out;
        }
    }

    private Lesson02Diagnosis() {
    }

    /** True when sums of labelled numbers stay exact in a float (below 2^24) for {@code p} ranks and {@code n} elements. */
    static boolean decodable(int p, int n) {
        return p >= 1 && p <= 8 && Math.pow(4, p) * (n + 1) * 3 * p < (1 << 24);
    }

    /** Rank {@code rank}'s labelled numbers (the random ones when {@code n} is too long to decode). */
    static float[] labelledInput(int rank, int p, int n) {
        if (!decodable(p, n)) {
            return Lesson02.randomInput(rank, n);
        }
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (Math.pow(4, rank) + Math.pow(4, p) * (i + 1));
        }
        return x;
    }

    /** True when every element of {@code got} holds every rank's number exactly once, from its own position. */
    static boolean complete(int p, int n, float[] got) {
        for (int j = 0; decodable(p, n) && j < p; j++) {
            if (state(p, n, got, j).kind != Kind.RIGHT) {
                return false;
            }
        }
        return decodable(p, n);
    }

    /**
     * Why rank {@code r}'s result is wrong. {@code got} is its labelled buffer after the student's function;
     * {@code halfOnly}: the reduce-scatter check (only segment r counts). The element values are from the random run.
     */
    static String explain(int r, int p, int n, float[] got, boolean halfOnly, int element, float gotValue) {
        // what came out, never what should have: the hint points at the mistake, the answer stays the student's
        String values = "Element " + element + ": got " + Lesson02.fmt(gotValue) + ". ";
        if (!decodable(p, n)) {
            return values + "At each step send one segment to the right and receive one from the left.";
        }
        if (Arrays.equals(got, labelledInput(r, p, n))) {
            return values + "Your buffer is unchanged: at each step send one segment to the right neighbour, receive"
                    + " one from the left and " + (halfOnly ? "ADD it to your own copy of that segment." : "add it in (the"
                    + " reduce-scatter), then pass the finished segments on (the all-gather).");
        }
        State own = state(p, n, got, r);
        if (halfOnly || own.kind != Kind.RIGHT) {
            if (own.kind == Kind.RIGHT) {
                return values + "With the check's labelled numbers your segment " + r + " is right: does your code"
                        + " depend on the values?";
            }
            return values + (halfOnly ? "" : "The reduce-scatter half is wrong (its check above says more): ")
                    + reduceScatter(r, p, n, got, own);
        }
        List<State> wrong = new ArrayList<>();
        for (int j = 0; j < p; j++) {
            State s = state(p, n, got, j);
            if (s.kind != Kind.RIGHT) {
                wrong.add(s);
            }
        }
        if (wrong.isEmpty()) {
            return values + "With the check's labelled numbers your result is right: does your code depend on the values?";
        }
        return values + "Segment " + r + " is complete, so the reduce-scatter worked; the all-gather did not. "
                + allGather(r, p, n, wrong);
    }

    private static String reduceScatter(int r, int p, int n, float[] got, State own) {
        String seg = "Segment " + r + " (elements " + elements(n, p, r) + ")";
        for (int j = 0; j < p; j++) {
            if (j != r && Lesson02.segmentLength(n, p, j) > 0 && state(p, n, got, j).kind == Kind.RIGHT) {
                return "The complete sum is in segment " + j + ", not " + r + ": your segment numbers are shifted by "
                        + Math.floorMod(j - r, p) + ". At step s (from 0) send segment (r - s - 1) mod p and receive"
                        + " segment (r - s - 2) mod p: after p - 1 steps segment r is the one completed.";
            }
        }
        switch (own.kind) {
            case NOT_A_SUM:
                return seg + " holds numbers that are no sum of the ranks' inputs: did you overwrite instead of add,"
                        + " or receive straight into buf? Receive into a separate array, then add it to the segment.";
            case MOVED:
                return "Element " + own.element + " holds numbers of element " + own.source + " (segment "
                        + segmentOf(n, p, own.source) + "): what arrived was added to another segment than the one"
                        + " sent. A wrong neighbour or segment number: send to the right (rank + 1), receive from the"
                        + " left (rank - 1); at step s send segment (r - s - 1) mod p, receive segment (r - s - 2) mod p,"
                        + " each at its own start(n, size, j).";
            case DOUBLE:
                return seg + " counts rank" + plural(own.ranks(2)) + " more than once (a double count): add what"
                        + " arrives once per step, and do not add your own numbers again (they are in buf already).";
            default:
                List<Integer> have = own.ranks(1);
                if (have.equals(List.of(r))) {
                    return seg + " holds only this rank's own numbers: it gets its partial sum at the last step"
                            + " (s = p - 2). A missing step? The loop needs p - 1 = " + (p - 1) + " steps.";
                }
                return seg + " holds the sum of ranks " + have + " only; missing: " + own.ranks(0) + ". A missing"
                        + " step, or passing on your original numbers: the loop needs p - 1 = " + (p - 1) + " steps,"
                        + " and from the second step on each rank passes on the partial sum it made in the step before.";
        }
    }

    private static String allGather(int r, int p, int n, List<State> wrong) {
        StringBuilder s = new StringBuilder();
        int shown = 0;
        for (State w : wrong) {
            if (shown++ == 3) {
                s.append(" (and ").append(wrong.size() - 3).append(" more segments)");
                break;
            }
            s.append(shown > 1 ? "; segment " : "Segment ").append(w.segment).append(" (elements ")
                    .append(elements(n, p, w.segment)).append(") ").append(what(n, p, w));
        }
        s.append(". ");
        int others = 0;
        for (int j = 0; j < p; j++) {
            others += j != r && Lesson02.segmentLength(n, p, j) > 0 ? 1 : 0;
        }
        // The telling mistake first: sums of sums (an adding all-gather) can grow past what the labels can read.
        Kind kind = Kind.NOT_A_SUM;
        for (Kind k : new Kind[] {Kind.DOUBLE, Kind.MOVED, Kind.PARTIAL}) {
            if (wrong.stream().anyMatch(w -> w.kind == k)) {
                kind = k;
                break;
            }
        }
        switch (kind) {
            case PARTIAL:
                return s + (wrong.size() == others && wrong.stream().allMatch(w -> w.kind == Kind.PARTIAL)
                        ? "These are the partial sums the reduce-scatter leaves: the all-gather did not run, or did not"
                        + " write into buf (an unreduced all-gather)."
                        : "A partial sum came through: the all-gather passed on a segment before it was complete, or"
                        + " stopped early.") + " It needs p - 1 steps: at step s send segment (r - s) mod p, the one"
                        + " finished or received just before, and receive segment (r - s - 1) mod p into buf.";
            case DOUBLE:
                return s + "The all-gather added what arrived; it must copy it (the segment is complete already).";
            case MOVED:
                return s + "A segment landed in another segment's place: at step s rank r sends segment (r - s) mod p"
                        + " to the right and receives segment (r - s - 1) mod p from the left, at start(n, size, j) with"
                        + " length(n, size, j) of the same j.";
            default:
                return s + "Receive the finished segment from the left neighbour and copy it into its place in buf.";
        }
    }

    private static String what(int n, int p, State w) {
        switch (w.kind) {
            case PARTIAL:
                return "holds the sum of ranks " + w.ranks(1) + " only";
            case DOUBLE:
                return "counts rank" + plural(w.ranks(2)) + " twice";
            case MOVED:
                return "holds at element " + w.element + " the numbers of element " + w.source + " (segment "
                        + segmentOf(n, p, w.source) + ")";
            default:
                return "holds numbers that are no sum of the ranks' inputs";
        }
    }

    /** Segment j's state, told by its first wrong element. */
    private static State state(int p, int n, float[] got, int j) {
        int from = Lesson02.segmentStart(n, p, j);
        int to = from + Lesson02.segmentLength(n, p, j);
        for (int i = from; i < to; i++) {
            double v = got[i];
            long base = 1L << (2 * p);
            if (v != Math.rint(v) || v < 0) {
                return new State(j, Kind.NOT_A_SUM, i, null, -1);
            }
            long digits = (long) v % base;
            long rest = (long) v / base;
            int[] counts = new int[p];
            int total = 0;
            for (int q = 0; q < p; q++, digits /= 4) {
                counts[q] = (int) (digits % 4);
                total += counts[q];
            }
            if (total == 0 || rest % total != 0 || rest / total < 1 || rest / total > n) {
                return new State(j, Kind.NOT_A_SUM, i, counts, -1);
            }
            int source = (int) (rest / total) - 1;
            if (source != i) {
                return new State(j, Kind.MOVED, i, counts, source);
            }
            if (Arrays.stream(counts).anyMatch(c -> c > 1)) {
                return new State(j, Kind.DOUBLE, i, counts, i);
            }
            if (Arrays.stream(counts).anyMatch(c -> c == 0)) {
                return new State(j, Kind.PARTIAL, i, counts, i);
            }
        }
        return new State(j, Kind.RIGHT, -1, null, -1);
    }

    static int segmentOf(int n, int p, int i) {
        int j = 0;
        while (j + 1 < p && Lesson02.segmentStart(n, p, j + 1) <= i) {
            j++;
        }
        return j;
    }

    private static String elements(int n, int p, int j) {
        int from = Lesson02.segmentStart(n, p, j);
        return Lesson02.range(from, from + Lesson02.segmentLength(n, p, j));
    }

    private static String plural(List<Integer> ranks) {
        return ranks.size() == 1 ? " " + ranks.get(0) : "s " + ranks;
    }
}
