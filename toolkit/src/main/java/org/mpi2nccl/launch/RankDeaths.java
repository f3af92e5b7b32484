package org.mpi2nccl.launch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * niodev ranks whose JVM ended before their main returned or threw, and how: the exit status the daemon saw
 * ({@code ended} records, {@link org.mpi2nccl.launch.rank.RankJvmWatch}) and what the rank said as it went
 * ({@code exiting} records: System.exit and its caller, or a signal). The two come by different pipes, in either
 * order: the failures are only written when the job ends. Not thread-safe: {@link RunningJob} holds its lock.
 */
final class RankDeaths {
    private final Map<Integer, Integer> statuses = new TreeMap<>();
    private final Map<Integer, String> howTheyWent = new TreeMap<>();
    private final java.util.Set<Integer> endedAfterMain = new java.util.TreeSet<>();

    void exiting(int rank, String how) {
        howTheyWent.put(rank, how);
    }

    void ended(int rank, int status) {
        statuses.put(rank, status);
    }

    /** The rank's JVM ended after its main returned or threw: no death. */
    void endedAfterMain(int rank) {
        endedAfterMain.add(rank);
    }

    /**
     * The rank's main returned or threw. The daemon's {@code ended} record may overtake the rank's own last records
     * (they come by different pipes, and a loaded machine delays either): a death recorded before is withdrawn.
     */
    void mainEnded(int rank) {
        if (statuses.remove(rank) != null) endedAfterMain.add(rank);
    }

    /** Whether the daemon saw the rank's JVM end. */
    boolean hasEnded(int rank) {
        return statuses.containsKey(rank) || endedAfterMain.contains(rank);
    }

    /** One failure per rank that died, each saying how. */
    List<RankFailure> failures() {
        List<RankFailure> out = new ArrayList<>();
        statuses.forEach((rank, status) -> out.add(RankFailure.died(rank, describe(status, howTheyWent.get(rank)))));
        return out;
    }

    /** "called System.exit(3) at Foo.main(Foo.java:9)", "was killed by signal 9 (SIGKILL: ...)". */
    static String describe(int status, String how) {
        if (how != null && how.startsWith("System.exit")) {
            return "called System.exit(" + (status >= 0 ? status : "?") + ")" + how.substring("System.exit".length());
        }
        if (status > 128 && status < 128 + 65) {
            int signal = status - 128;
            String name = switch (signal) {
                case 9 -> "SIGKILL: kill -9, or the kernel's out-of-memory killer";
                case 15 -> "SIGTERM";
                case 2 -> "SIGINT";
                case 6 -> "SIGABRT: the JVM crashed, see its hs_err file";
                case 11 -> "SIGSEGV: a native library crashed";
                default -> "signal " + signal;
            };
            return "was killed by signal " + signal + " (" + name + ")";
        }
        if (status >= 0) {
            return "ended with exit status " + status + (how != null ? " (" + how + ")" : "")
                    + " before main returned";
        }
        return how != null ? "was " + how : "ended before main returned";
    }
}
