package org.mpi2nccl.launch.nodes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The system commands that make simulated nodes: iproute2's {@code ip} and {@code tc}, run with a time limit.
 * Also the one check of what they need: root, and {@code ip} installed.
 */
final class Ip {
    private Ip() {}

    /** The one-line reason simulated nodes cannot be made here, or empty when root and {@code ip} are present. */
    static Optional<String> whyNot() {
        return whyNot(isRoot(), find("ip").isPresent(), System.getProperty("user.name"));
    }

    static Optional<String> whyNot(boolean root, boolean ip, String userName) {
        if (root && ip) return Optional.empty();
        String user = "the user here is " + userName;
        if (!root && !ip) {
            return Optional.of("simulated nodes need root and iproute2's ip (network namespaces, veth links):"
                    + " run as root on a machine with iproute2 installed; " + user);
        }
        return Optional.of(!root ? "simulated nodes need root (network namespaces, veth links): run as root (sudo); " + user
                : "simulated nodes need iproute2's ip command: install it (apt-get install iproute2)");
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) return line.split("\\s+")[2].equals("0");   // effective uid
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no network namespaces either
        }
        return false;
    }

    static Optional<Path> find(String program) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        return dirs.stream().filter(d -> !d.isBlank()).map(d -> Path.of(d, program)).filter(Files::isExecutable).findFirst();
    }

    /** Runs {@code cmd}; returns its output, or throws naming {@code what} failed and what the command said. */
    static String run(String what, String... cmd) {
        Result r = tryRun(cmd);
        if (r.status != 0) {
            throw new NodesException("simulated nodes: " + what + " failed (" + String.join(" ", cmd) + ": "
                    + r.output.trim() + "): check that this machine allows network namespaces (root, CAP_NET_ADMIN)");
        }
        return r.output;
    }

    /** Runs {@code cmd} and returns its status and output (status -1: it did not end within 20 s, or could not start). */
    static Result tryRun(String... cmd) {
        List<String> line = new ArrayList<>(List.of(cmd));
        if (!line.get(0).contains("/")) find(line.get(0)).ifPresent(p -> line.set(0, p.toString()));   // ip, tc: often in /usr/sbin
        try {
            Process p = new ProcessBuilder(line).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "did not end within 20 s");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }

    record Result(int status, String output) {}
}
