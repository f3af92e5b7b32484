package org.mpi2nccl.lessons;

import java.util.Locale;

/**
 * How long the lessons' measurements run: {@code full} (the default: what a student runs) or {@code short} (the
 * fewest rounds, epochs and sizes that still run every cell's code, for a test run). It comes from the environment
 * variable {@value #VARIABLE} (or the system property {@value #PROPERTY}), which the kernel passes on to its rank
 * engines, so a notebook is never edited to make it short. A short run says so wherever it prints a measurement.
 */
public enum LessonLength {
    FULL, SHORT;

    /** The environment variable that chooses the length: {@code full} or {@code short}. */
    public static final String VARIABLE = "MPI2NCCL_LESSON_LENGTH";
    /** The same as a system property; it wins over the variable. */
    public static final String PROPERTY = "mpi2nccl.lessonLength";

    /** The length in effect; an unknown value is an error naming the variable and the values it takes. */
    public static LessonLength current() {
        String v = System.getProperty(PROPERTY);
        String from = "-D" + PROPERTY;
        if (v == null) {
            v = System.getenv(VARIABLE);
            from = VARIABLE;
        }
        return parse(v, from);
    }

    static LessonLength parse(String value, String from) {
        if (value == null || value.isBlank()) return FULL;
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "full" -> FULL;
            case "short" -> SHORT;
            default -> throw new IllegalArgumentException(from + "=" + value
                    + " is not a lesson length: use full (what a student runs, the default) or short (a test run)");
        };
    }

    /** {@code full} or {@code shortRun}, by this length. */
    public int pick(int full, int shortRun) {
        return this == FULL ? full : shortRun;
    }

    /** "" for a full run; else a sentence to print beside a measurement that a short run makes less reliable. */
    public String note() {
        return this == FULL ? "" : "(a short run, " + VARIABLE + "=short: fewer rounds and steps than a student's,"
                + " so these numbers are rougher)";
    }
}
