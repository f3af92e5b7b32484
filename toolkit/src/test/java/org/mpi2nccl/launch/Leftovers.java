package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;

/** Checks, by process id, that a job left nothing running. */
final class Leftovers {
    private Leftovers() {}

    static void assertGone(List<Long> pids) {
        assertFalse(pids.isEmpty(), "a job always starts at least one process");
        List<Long> alive = pids.stream()
                .filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).toList();
        assertEquals(List.of(), alive, "processes of the job still running");
    }

    /** No process started by this test JVM is still running (a job's daemon, starter, rank JVM). */
    static void assertNoDescendants() {
        List<String> alive = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList();
        assertEquals(List.of(), alive, "processes left behind by the test");
    }
}
