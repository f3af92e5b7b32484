package org.mpi2nccl.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The TCP ports in LISTEN state in a process's network namespace, from its own socket tables
 * ({@code /proc/PID/net/tcp} and {@code tcp6}): what listens where a process lives, also inside a network namespace
 * this JVM is not in, without connecting (a bare connection makes MPJ's daemon log a stack trace).
 */
public final class ListeningPorts {
    private ListeningPorts() {
    }

    /** Every port that listens in process {@code pid}'s network (empty when the process is gone). */
    public static Set<Integer> of(long pid) {
        return read(pid, null);
    }

    /** The ports that sockets process {@code pid} itself holds open listen on. */
    public static Set<Integer> heldBy(long pid) {
        Set<String> inodes = new TreeSet<>();
        try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String link = Files.readSymbolicLink(fd).toString();
                    if (link.startsWith("socket:[")) inodes.add(link.substring(8, link.length() - 1));
                } catch (IOException closed) {
                    // closed meanwhile
                }
            }
        } catch (IOException gone) {
            return Set.of();
        }
        return read(pid, inodes);
    }

    private static Set<Integer> read(long pid, Set<String> inodes) {
        Set<Integer> ports = new TreeSet<>();
        for (String table : List.of("tcp", "tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "net", table))) {
                    // fields: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode; st 0A is LISTEN
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && f[3].equals("0A") && (inodes == null || inodes.contains(f[9]))) {
                        ports.add(Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1), 16));
                    }
                }
            } catch (IOException gone) {
                // no such table, or the process ended
            }
        }
        return ports;
    }
}
