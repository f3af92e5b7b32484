package org.mpi2nccl.lessons;

import org.mpi2nccl.doctor.Doctor;

/**
 * Lesson 00, set-up and doctor: the exercise asks how much memory each of 4 ranks may use on this machine.
 */
public final class Lesson00 {
    public static final int RANKS = 4;
    private static final long MIB = 1024L * 1024;

    private Lesson00() {
    }

    /** The answer: the machine's memory split evenly over {@link #RANKS} ranks, in MiB. */
    public static long memoryPerRankMiB() {
        return Doctor.physicalMemoryBytes() / RANKS / MIB;
    }

    /** Checks {@code perRankMiB} and explains the usual wrong answers. */
    public static Check checkMemoryPerRank(long perRankMiB) {
        long total = Doctor.physicalMemoryBytes();
        long right = memoryPerRankMiB();
        if (near(perRankMiB, right)) {
            return Check.right("memory per rank", perRankMiB + " MiB per rank: " + RANKS + " ranks can each hold"
                    + " about that much before the machine runs out of memory (minus what the OS and JVMs need).");
        }
        String why;
        if (perRankMiB <= 0) {
            why = "there is no answer yet: set perRankMiB from the report's memory line.";
        } else if (near(perRankMiB, total / RANKS)) {
            why = "that is bytes, not MiB: divide by 1024 * 1024 as well.";
        } else if (near(perRankMiB, total / MIB)) {
            why = "that is the whole machine's memory: the " + RANKS + " ranks share it, divide by " + RANKS + ".";
        } else if (near(perRankMiB, Runtime.getRuntime().maxMemory() / RANKS / MIB)
                || near(perRankMiB, Runtime.getRuntime().maxMemory() / MIB)) {
            why = "that comes from this JVM's heap limit (Runtime.maxMemory), not from the machine's memory:"
                    + " use the report's memory line (Doctor.physicalMemoryBytes()).";
        } else if (near(perRankMiB, total / (long) Runtime.getRuntime().availableProcessors() / MIB)) {
            why = "that divides by the number of cores; the exercise asks for " + RANKS + " ranks.";
        } else {
            why = "expected about " + right + " MiB (" + total / MIB + " MiB / " + RANKS + " ranks).";
        }
        return Check.wrong("memory per rank: " + perRankMiB + " MiB is not it", why);
    }

    private static boolean near(long a, long b) {
        return Math.abs(a - b) <= Math.max(2, Math.abs(b) / 100);
    }
}
