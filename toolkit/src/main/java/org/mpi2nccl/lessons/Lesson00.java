package org.mpi2nccl.lessons;

import java.util.Locale;
import org.mpi2nccl.doctor.Doctor;
import tech.tablesaw.api.Table;

/**
 * Lesson 00, set-up and doctor: what the core-scaling chart showed on this machine ({@link #scalingSummary}), and
 * the warm-up exercise: how much memory each of 4 ranks may use here.
 */
public final class Lesson00 {
    public static final int RANKS = 4;
    private static final long MIB = 1024L * 1024;

    private Lesson00() {
    }

    /**
     * What the core-scaling table (doctor's CoreScaling: threads, seconds, speedup) showed, measured against what
     * {@code cores} cores allow: at most min(threads, cores) times faster than one thread.
     */
    public static String scalingSummary(Table scaling, int cores) {
        int[] threads = scaling.intColumn("threads").asIntArray();
        double[] speedup = scaling.doubleColumn("speedup").asDoubleArray();
        int best = 0;
        double atCores = Double.NaN;
        for (int i = 0; i < threads.length; i++) {
            best = speedup[i] > speedup[best] ? i : best;
            atCores = threads[i] == cores ? speedup[i] : atCores;
        }
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "This machine has %d core%s: at best %d"
                + " thread%s run at once, so the ideal speed-up is %d.0x. Measured: %.2fx with %d thread%s",
                cores, cores == 1 ? "" : "s", cores, cores == 1 ? "" : "s", cores, speedup[best], threads[best],
                threads[best] == 1 ? "" : "s"));
        if (speedup[best] > 1.1 * cores) {
            s.append(", more than the cores allow: the one-thread run was slowed down (another program used the core"
                    + " then, or the clock speed changed). Run the cell again.");
        } else if (!Double.isNaN(atCores)) {
            // The speed-up with as many threads as cores is the one to hold against the ideal.
            if (threads[best] != cores) {
                s.append(String.format(Locale.ROOT, "; %.2fx with %d threads", atCores, cores));
            }
            s.append(atCores >= 0.8 * cores ? ", close to the ideal: each thread had a core of its own."
                    : String.format(Locale.ROOT, ", below the ideal %d.0x with %d threads: other programs were using the"
                    + " cores (see the report's load line), so the threads took turns with them.", cores, cores));
        } else {
            s.append('.');
        }
        int last = threads.length - 1;
        if (threads[last] > cores && !Double.isNaN(atCores) && speedup[last] > 1.1 * atCores) {
            // what the table shows comes first: here more threads than cores measured faster, so say why that can be
            s.append(String.format(Locale.ROOT, " With %d threads (more than the cores) it was %.2fx, faster than with"
                    + " %d: the run with one thread a core was slowed by other work on the machine, and the extra threads"
                    + " made up for it by taking turns. On an idle machine extra threads add no speed: run the cell"
                    + " again to see.", threads[last], speedup[last], cores));
        } else if (threads[last] > cores) {
            s.append(String.format(Locale.ROOT, " With %d threads (more than the cores) it was %.2fx: extra threads"
                    + " only take turns, they add no speed.", threads[last], speedup[last]));
        }
        return s.toString();
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
