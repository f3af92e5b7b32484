package org.mpi2nccl.launch;

import java.time.Duration;
import java.util.List;

/**
 * What MPJ's starter and daemons print outside any rank, turned into the short causes the launcher's errors
 * give (a daemon nobody started, MPJ's last words before a timeout).
 */
final class MpjSaid {
    private MpjSaid() {}

    private static final java.util.regex.Pattern NO_DAEMON = java.util.regex.Pattern.compile(
            ".*Cannot connect to the daemon at machine <([^>]*)> and port <(\\d+)>.*");

    /** MPJ's starter could not reach a daemon: the one-line cause and what to do, or null. */
    static String noDaemon(List<String> mpjSaid) {
        for (String line : mpjSaid) {
            var m = NO_DAEMON.matcher(line);
            if (m.matches()) {
                return "no MPJ daemon answers at " + m.group(1) + ":" + m.group(2) + ": start one there"
                        + " (MPJ_HOME=... java -jar $MPJ_HOME/lib/daemon.jar " + m.group(2) + ") or fix the daemon port";
            }
        }
        return null;
    }

    private static final java.util.regex.Pattern JVM_START_ERROR = java.util.regex.Pattern.compile(
            "(Error: Could not create the Java Virtual Machine\\.|Error occurred during initialization of VM"
            + "|Unrecognized (VM )?option: .*|Invalid (initial|maximum) heap size.*|Too small (maximum|initial) heap"
            + "|Could not reserve enough space for .*)");

    /** A line a JVM prints when it cannot start (a bad option, a heap it cannot get). */
    static boolean isJvmStartError(String line) {
        return JVM_START_ERROR.matcher(line.trim()).matches();
    }

    /** The last lines MPJ or the JVM printed outside any rank (its errors), for an exception's message. */
    static String lastWords(List<String> mpjSaid) {
        return mpjSaid.isEmpty() ? "" : ". MPJ said: " + String.join(" | ",
                mpjSaid.subList(Math.max(0, mpjSaid.size() - 4), mpjSaid.size()));
    }

    static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
