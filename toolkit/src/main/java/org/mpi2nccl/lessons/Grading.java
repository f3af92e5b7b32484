package org.mpi2nccl.lessons;

import java.util.Locale;
import java.util.StringJoiner;

/**
 * A lesson's side of grading by data. The grader runs each submission with a fresh number in {@value #SEED_ENV}:
 * the exercises' inputs then differ from the lesson's usual ones (and from one grading to the next), and each check
 * also prints what the student's code produced, as an {@value #ANSWER} line. The grader compares those with the
 * right values it computes itself, outside the student's run: a check class the student shadows, a "RIGHT" printed
 * by hand or a notebook rewritten afterwards earns nothing without the right numbers for inputs nobody saw before.
 * Outside grading {@link #seed} is 0 and no line is printed: a student's notebook looks as it always does.
 */
public final class Grading {
    public static final String SEED_ENV = "MPI2NCCL_GRADING_SEED";
    /** The start of an answer line: {@code ANSWER exercise: v1 v2 ...}, after the rank's tag on a rank. */
    public static final String ANSWER = "ANSWER ";

    private Grading() {
    }

    /** This run's grading seed, or 0 outside grading (the lesson's usual inputs). */
    public static long seed() {
        String s = System.getenv(SEED_ENV);
        if (s == null || s.isBlank()) return 0;
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(SEED_ENV + "=" + s + " is not a whole number (the grader sets it)");
        }
    }

    /** During grading, prints what the student's code gave for {@code exercise} (one line, full precision). */
    static void record(String exercise, double... values) {
        if (seed() == 0) return;
        StringJoiner j = new StringJoiner(" ");
        for (double v : values) j.add(String.format(Locale.ROOT, "%.17g", v));
        System.out.println(ANSWER + exercise + ": " + j);
    }
}
