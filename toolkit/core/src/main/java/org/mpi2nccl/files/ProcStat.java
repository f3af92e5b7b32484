package org.mpi2nccl.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's state from {@code /proc/PID/stat}. Java's {@code ProcessHandle.isAlive} is true for a process that
 * has ended but whose parent has not collected it yet (a zombie, state Z): it runs nothing and holds no file, so
 * whoever cleans up after it need not wait for it.
 */
public final class ProcStat {
    private ProcStat() {
    }

    /** True when {@code pid} is gone, or has ended and only waits to be collected (state Z or X). */
    public static boolean ended(long pid) {
        char state = state(pid);
        return state == 'Z' || state == 'X' || state == 0;
    }

    /** True when {@code pid} is stopped (state T: SIGSTOP, Ctrl-Z; or t: held by a debugger). */
    public static boolean stopped(long pid) {
        char state = state(pid);
        return state == 'T' || state == 't';
    }

    /** The state letter of {@code pid} (R, S, D, T, Z, ...), 0 when it is gone, '?' when unreadable. */
    static char state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');   // the command name may hold spaces and parentheses
            return close > 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
        } catch (IOException e) {
            return 0;
        }
    }
}
