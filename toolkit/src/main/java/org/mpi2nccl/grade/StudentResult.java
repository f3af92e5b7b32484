package org.mpi2nccl.grade;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * A student's row of the gradebook: the verdict of each exercise, how long the run took, a note on the run as a
 * whole (empty when it ended normally), the pids of the run (the test checks none is left), how the run went, and
 * the student's answer to each write-up (marked by hand, never run).
 */
record StudentResult(String student, List<Verdict> verdicts, Duration time, String note, Set<Long> pids, Run run,
                     List<Writeup.Answer> writeups) {
    StudentResult(String student, List<Verdict> verdicts, Duration time, String note, Set<Long> pids, Run run) {
        this(student, verdicts, time, note, pids, run, List.of());
    }


    /** How a student's kernel run went, as far as the grader itself is concerned. */
    enum Run {
        /** Not started: the submission could not be read (the student's own doing). */
        NOT_STARTED,
        /** Ended and wrote its executed notebook. */
        EXECUTED,
        /** Stopped at the time limit (the student's code ran too long). */
        KILLED,
        /** Ended without writing a notebook: the kernel could not run at all. */
        NO_NOTEBOOK
    }

    long passed() {
        return verdicts.stream().filter(Verdict::passed).count();
    }
}
