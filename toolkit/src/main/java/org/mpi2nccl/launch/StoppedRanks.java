package org.mpi2nccl.launch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.mpi2nccl.files.ProcStat;
import org.mpi2nccl.launch.rank.RankJvmWatch;

/**
 * Names a rank JVM that is stopped (SIGSTOP, Ctrl-Z, a debugger) while its job runs. A stopped rank sends nothing,
 * so the stall reports name only the ranks that wait for it; the launcher sees the process's state itself and says
 * which rank it is and how to resume it, once per stop.
 */
final class StoppedRanks {
    private final Set<Long> told = new HashSet<>();

    /** A line for each rank JVM among {@code processes} that has stopped since the last look. */
    List<String> look(Collection<ProcessHandle> processes) {
        List<String> out = new ArrayList<>();
        for (ProcessHandle p : processes) {
            if (!p.isAlive() || !ProcStat.stopped(p.pid())) {
                told.remove(p.pid());
                continue;
            }
            String who = who(p);
            if (who == null || !told.add(p.pid())) continue;
            out.add(who + " (pid " + p.pid() + ") is stopped (SIGSTOP, Ctrl-Z or a debugger): the other ranks wait for it;"
                    + " kill -CONT " + p.pid() + " resumes it");
        }
        return out;
    }

    /** "rank 2" for a niodev rank JVM, "the ranks' JVM" for the multicore one, null for the job's other processes. */
    private static String who(ProcessHandle p) {
        int rank = RankJvmWatch.rankOf(p);
        if (rank >= 0) return "rank " + rank;
        return String.join(" ", RankJvmWatch.arguments(p)).contains("MulticoreBoot") ? "the ranks' JVM" : null;
    }
}
