package org.mpi2nccl.launch.rank;

import java.util.Optional;

/**
 * The line format between a rank and the launcher. Every line a rank writes reaches the launcher through
 * a pipe (multicore) or through the MPJ daemon and starter (niodev, possibly from another host), so the rank,
 * the stream and the kind of record travel inside the line itself:
 * <pre>  @@mpj|RANK|KIND|TEXT</pre>
 * KIND is {@code out} or {@code err} (a line the program printed), {@code done} (main returned),
 * {@code fail} (main threw; TEXT is JSON, see {@link RankFailureRecord}), {@code exiting} (the JVM is going before
 * main returned) or {@code ended} (the daemon saw the rank's JVM end). Lines without the prefix come from
 * MPJ Express itself or from the JVM.
 */
public final class Wire {
    public static final String PREFIX = "@@mpj|";

    /** What a tagged line carries. */
    public enum Kind {
        OUT("out"), ERR("err"), DONE("done"), FAIL("fail"),
        /** The rank's JVM is going before main returned (System.exit or a signal); TEXT says how. */
        EXITING("exiting"),
        /** Sent by the daemon's {@link RankJvmWatch}: the rank's JVM has ended; TEXT is its exit status. */
        ENDED("ended"),
        /** The rank has waited in one MPI call for a while ({@link StallReporter}): TEXT is SECONDS|PLACE. */
        WHERE("where");

        final String code;

        Kind(String code) {
            this.code = code;
        }

        static Optional<Kind> of(String code) {
            for (Kind k : values()) {
                if (k.code.equals(code)) return Optional.of(k);
            }
            return Optional.empty();
        }
    }

    /** One decoded line. */
    public record Tagged(int rank, Kind kind, String text) {}

    private Wire() {}

    public static String encode(int rank, Kind kind, String text) {
        return PREFIX + rank + '|' + kind.code + '|' + text;
    }

    /** The tagged line inside {@code line}, or empty for an untagged line. */
    public static Optional<Tagged> decode(String line) {
        // The daemon may put its own text before the rank's line (it never does in 0.44, but stay lenient).
        int at = line.indexOf(PREFIX);
        if (at < 0) return Optional.empty();
        int rankEnd = line.indexOf('|', at + PREFIX.length());
        if (rankEnd < 0) return Optional.empty();
        int kindEnd = line.indexOf('|', rankEnd + 1);
        if (kindEnd < 0) return Optional.empty();
        try {
            int rank = Integer.parseInt(line.substring(at + PREFIX.length(), rankEnd));
            return Kind.of(line.substring(rankEnd + 1, kindEnd))
                    .map(kind -> new Tagged(rank, kind, line.substring(kindEnd + 1)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
