package org.mpi2nccl.launch;

/**
 * Why a rank failed: the exception its main threw ({@code type}, {@code message}), where it was thrown
 * and the whole stack trace.
 */
public record RankFailure(int rank, String type, String message, String where, String trace) {
    /** Text of a JNI library that a second class loader tried to load (multicore + JCuda, for example). */
    static final String JNI_SECOND_LOADER = "already loaded in another classloader";

    /** The type of a failure whose JVM died (no exception): {@link #message} says how. */
    static final String DIED = "died";

    /** A rank whose JVM ended before its main returned; {@code how}: "called System.exit(3) at ...". */
    static RankFailure died(int rank, String how) {
        return new RankFailure(rank, DIED, how, "", "");
    }

    /** True when the rank failed because a JNI library can load in only one class loader per JVM. */
    public boolean isJniLoadedByAnotherRank() {
        return trace != null && trace.contains(JNI_SECOND_LOADER)
                || message != null && message.contains(JNI_SECOND_LOADER);
    }

    /** {@code rank 1 called System.exit(3) at ...}, or {@code rank 1 threw java.lang.IllegalStateException: boom (at Foo.main(Foo.java:9))}. */
    public String summary() {
        if (DIED.equals(type)) return "rank " + rank + " " + message;
        String m = message == null ? type : type + ": " + message;
        return "rank " + rank + " threw " + m + (where == null || where.isEmpty() ? "" : " (at " + where + ")");
    }
}
