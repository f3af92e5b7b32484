package org.mpi2nccl.grade;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * A student's row of the gradebook: the verdict of each exercise, how long the run took, a note on the run as a
 * whole (empty when it ended normally), and the pids of the run (the test checks none is left).
 */
record StudentResult(String student, List<Verdict> verdicts, Duration time, String note, Set<Long> pids) {
    long passed() {
        return verdicts.stream().filter(Verdict::passed).count();
    }
}
