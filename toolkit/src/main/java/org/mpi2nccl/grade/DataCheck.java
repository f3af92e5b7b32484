package org.mpi2nccl.grade;

import com.google.gson.JsonObject;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpi2nccl.lessons.GradedFunctions;
import org.mpi2nccl.lessons.Grading;
import org.mpi2nccl.lessons.Lesson01;
import org.mpi2nccl.lessons.Lesson02;
import org.mpi2nccl.lessons.Lesson03Grading;
import org.mpi2nccl.lessons.Lesson03Wrapper;
import org.mpi2nccl.lessons.Lesson07Sharded;
import org.mpi2nccl.lessons.Lesson07;
import org.mpi2nccl.notebook.Notebook;

/**
 * Grading by data ({@link Grading}): for an exercise with a reference here, the verdict comes from the values the
 * student's code produced on the grading's fresh inputs (the check cells' {@code ANSWER} lines), compared with the
 * right values computed in the grader's own JVM, never from the "RIGHT" the run printed. The printed hint still
 * explains a wrong answer to the student, and must say RIGHT too: a check may ask more than numbers (that an overlap
 * overlapped). Exercises without a reference are judged by their printed verdict.
 */
final class DataCheck {
    /** The right values of one rank, for a job of {@code ranks} ranks and a grading seed. */
    interface Expected {
        double[] of(int rank, int ranks, long seed);
    }

    /** An exercise's right values, and how far (relative) an answer may be from them: float arithmetic rounds. */
    record Reference(Expected expected, double tolerance) {
    }

    /** Lesson 03's stages: a digest of the parameters after training, which every stage must make one rank's. */
    private static final Reference ONE_RANKS_TRAINING = new Reference((rank, ranks, seed) -> Lesson03Grading.answer(seed),
            Lesson03Grading.GRADED_TOLERANCE);

    private static final Map<String, Reference> REFERENCES = Map.ofEntries(
            Map.entry("global-mean", new Reference((rank, ranks, seed) -> new double[] {Lesson01.globalMean(ranks, seed)}, 1e-9)),
            // sums of whole numbers: exact in float
            Map.entry("reduce-scatter", new Reference((rank, ranks, seed) -> Lesson02.gradingAnswer(rank, ranks, seed, true), 1e-9)),
            Map.entry("all-gather", new Reference((rank, ranks, seed) -> Lesson02.gradingAnswer(rank, ranks, seed, false), 1e-9)),
            Map.entry("shares", ONE_RANKS_TRAINING),
            Map.entry("average-gradients", ONE_RANKS_TRAINING),
            Map.entry("buckets", ONE_RANKS_TRAINING),
            Map.entry("overlap", ONE_RANKS_TRAINING),
            Map.entry(Lesson03Wrapper.EXERCISE, new Reference((rank, ranks, seed) -> Lesson03Wrapper.gradingAnswer(seed),
                    Lesson03Grading.GRADED_TOLERANCE)),
            // formulas: equal up to the order of the arithmetic
            Map.entry("bus-bandwidth", new Reference((rank, ranks, seed) -> GradedFunctions.busBandwidthAnswer(seed), 1e-9)),
            Map.entry("speedup-model", new Reference((rank, ranks, seed) -> GradedFunctions.speedupModelAnswer(seed), 1e-9)),
            Map.entry("pick-interface", new Reference((rank, ranks, seed) -> GradedFunctions.pickInterfaceAnswer(seed), 0)),
            // two momentum steps in float against the same in double
            Map.entry("sharded-step", new Reference((rank, ranks, seed) -> Lesson07.gradingAnswer(ranks, seed), 1e-5)),
            // the lesson's model trained a few steps from the grading's weights, against one rank with the plain optimizer
            Map.entry(Lesson07Sharded.EXERCISE, new Reference((rank, ranks, seed) -> Lesson07Sharded.gradingAnswer(seed), 1e-4)));
    private static final Pattern LINE = Pattern.compile("(?m)^(?:\\[rank (\\d+)\\] )?" + Grading.ANSWER + "(\\S+): (.*)$");
    private static final Pattern RANKS = Pattern.compile("%mpj start -np (\\d+)");

    private DataCheck() {
    }

    static Optional<Reference> of(String exercise) {
        return Optional.ofNullable(REFERENCES.get(exercise));
    }

    /** How many ranks the source starts ({@code %mpj start -np N}); 1 for a lesson whose checks run in the kernel. */
    static int ranks(Notebook source) {
        for (JsonObject c : source.cells()) {
            Matcher m = RANKS.matcher(Notebook.source(c));
            if (m.find()) return Integer.parseInt(m.group(1));
        }
        return 1;
    }

    /**
     * How many ranks answer {@code ex}: the source's ranks when its check runs on them ({@code %%mpj}), else one, the
     * kernel (lesson 04's bus bandwidth is checked in the kernel beside rank cells).
     */
    static int ranksOf(Exercise ex, Notebook source, int sourceRanks) {
        for (JsonObject c : source.cells()) {
            if (ex.checkIds().contains(Notebook.id(c)) && Notebook.source(c).stripLeading().startsWith("%%mpj")) return sourceRanks;
        }
        return 1;
    }

    /** The verdict of {@code ex} by its answers in {@code executed}; {@code printed}: what the check cells said. */
    static Verdict judge(Exercise ex, Reference ref, Notebook executed, long seed, int ranks, Verdict printed) {
        Map<Integer, String> answers = new TreeMap<>();
        for (JsonObject c : executed.cells()) {
            if (!ex.checkIds().contains(Notebook.id(c))) continue;
            Matcher m = LINE.matcher(Verdict.outputText(c));
            while (m.find()) {
                if (!m.group(2).equals(ex.name())) continue;
                int rank = m.group(1) == null ? 0 : Integer.parseInt(m.group(1));
                String before = answers.putIfAbsent(rank, m.group(3).trim());
                if (before != null && !before.equals(m.group(3).trim())) {
                    return wrong(ex, printed, "rank " + rank + " gave two different answers (" + before + ", "
                            + m.group(3).trim() + "): the check's lines were not the check's alone");
                }
            }
        }
        for (int rank = 0; rank < ranks; rank++) {
            String said = answers.get(rank);
            if (said == null) {
                return wrong(ex, printed, "no answer from rank " + rank + " for the grading's inputs (the check did not run"
                        + " as the lesson gives it)");
            }
            double[] want = ref.expected().of(rank, ranks, seed);
            String[] got = said.split("\\s+");
            if (got.length != want.length) {
                return wrong(ex, printed, "rank " + rank + " answered " + got.length + " value(s), expected " + want.length);
            }
            for (int i = 0; i < want.length; i++) {
                double g;
                try {
                    g = Double.parseDouble(got[i]);
                } catch (NumberFormatException e) {
                    return wrong(ex, printed, "rank " + rank + " answered '" + got[i] + "', not a number");
                }
                if (!(Math.abs(g - want[i]) <= ref.tolerance() * Math.max(1, Math.abs(want[i])))) {
                    return wrong(ex, printed, "rank " + rank + " answered " + g + " for the grading's inputs, the right"
                            + " value is " + want[i]);
                }
            }
        }
        if (!printed.passed()) {   // the check asks more than numbers (lesson 03's overlap must overlap): it must agree
            return Verdict.failed(ex.name(), "right numbers on the grading's inputs, but the check said: " + printed.detail());
        }
        return new Verdict(ex.name(), true, "right on the grading's own inputs, on all " + ranks + " rank(s)");
    }

    private static Verdict wrong(Exercise ex, Verdict printed, String why) {
        String hint = printed.passed() ? " (the check cell printed RIGHT: not its numbers)" : " (" + printed.detail() + ")";
        return Verdict.failed(ex.name(), why + hint);
    }
}
