package org.mpi2nccl.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.mpi2nccl.launch.rank.DaemonBoot;
import org.mpi2nccl.launch.rank.Wire;

/**
 * An MPJ Express daemon ({@code java -jar $MPJ_HOME/lib/daemon.jar PORT}) started by the launcher: the
 * process that starts niodev rank JVMs on its host when a starter asks. One per host and job here; on a
 * real cluster, one long-lived daemon per host (see mpj-config/README.md).
 *
 * <p>The daemon reads its port manager's port from {@code $MPJ_HOME/conf/mpjexpress.conf} and starts
 * rank JVMs with the {@code java} it finds on its PATH, so both come from the environment given here.
 * Closing it stops the daemon and every rank JVM it started.
 */
public final class MpjDaemon implements AutoCloseable {
    private final Process process;
    private final int port;
    private final List<String> output = Collections.synchronizedList(new ArrayList<>());
    private volatile Consumer<String> tagged;

    private MpjDaemon(Process process, int port) {
        this.process = process;
        this.port = port;
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    Consumer<String> l = tagged;
                    if (l != null && line.contains(Wire.PREFIX)) {
                        l.accept(line);
                    } else if (output.size() < 200) {
                        output.add(line);
                    }
                }
            } catch (IOException ignored) {
                // the daemon was stopped
            }
        }, "mpj-daemon-" + port + "-output");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Starts a daemon on {@code port} with {@code jobHome} as its MPJ_HOME.
     *
     * @param commandPrefix put before the java command (e.g. {@code ip netns exec NAME}); may be empty
     */
    public static MpjDaemon start(Path jobHome, int port, Path javaBin, Map<String, String> env,
                                  List<String> commandPrefix, List<String> jvmArgs) {
        List<String> cmd = new ArrayList<>(commandPrefix);
        cmd.add(javaBin.toString());
        cmd.addAll(jvmArgs);
        // RankJvmWatch reads each rank JVM's exit status from the JDK's process reaper.
        cmd.add("--add-opens=java.base/java.lang=ALL-UNNAMED");
        // The daemon keeps each job's files in ~/.mpj_users and deletes that whole directory when a job ends,
        // also under another daemon's running job: give every daemon its own home.
        cmd.add("-Duser.home=" + jobHome);
        // MPJ's daemon, run through DaemonBoot: it stops (with its rank JVMs) when the launcher's JVM ends, and
        // reports how each rank JVM ended.
        cmd.add("-cp");
        cmd.add(jobHome.resolve("lib").resolve("daemon.jar") + java.io.File.pathSeparator + ToolkitClasspath.joined());
        cmd.add(DaemonBoot.class.getName());
        cmd.add(Integer.toString(port));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        pb.environment().put("MPJ_HOME", jobHome.toString());
        // Rank JVMs are started as plain "java": make that the same Java as ours.
        pb.environment().put("PATH", javaBin.getParent() + java.io.File.pathSeparator
                + pb.environment().getOrDefault("PATH", "/usr/bin:/bin"));
        pb.directory(jobHome.toFile());
        try {
            return new MpjDaemon(pb.start(), port);
        } catch (IOException e) {
            throw new MpjLaunchException("cannot start the MPJ daemon (" + String.join(" ", cmd) + "): "
                    + e.getMessage() + ": check that Java is installed", e);
        }
    }

    /** From now on, the daemon's tagged lines (how its rank JVMs ended) go to {@code listener}. */
    public void onTaggedLine(Consumer<String> listener) {
        this.tagged = listener;
    }

    /**
     * Waits until the daemon listens on its port. It looks at the socket table of the daemon's own network (a test
     * connection would make MPJ's daemon log a stack trace, and cannot reach a daemon in a private network).
     */
    public void awaitListening(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new MpjLaunchException("the MPJ daemon on port " + port + " exited at start"
                        + describeOutput() + ": check that the port is free and MPJ_HOME is complete");
            }
            if (ListeningPorts.of(process.pid()).contains(port)) return;
            // nothing tells when another process starts listening: look again after a pause that ends if the daemon exits
            waitForExit(50);
        }
        close();
        throw new MpjLaunchException("the MPJ daemon did not listen on port " + port + " within "
                + timeout.toSeconds() + " s" + describeOutput() + ": is the machine overloaded?");
    }

    public int port() {
        return port;
    }

    public Process process() {
        return process;
    }

    /** What the daemon printed so far (it prints only on trouble). */
    public List<String> output() {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    private String describeOutput() {
        List<String> out = output();
        return out.isEmpty() ? "" : " (it said: " + String.join(" | ", out.subList(0, Math.min(5, out.size()))) + ")";
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Stops the daemon and the rank JVMs it started. */
    @Override
    public void close() {
        ProcessTree.destroy(List.of(process.toHandle()), Duration.ofSeconds(5));
    }

    private void waitForExit(long ms) {
        try {
            process.waitFor(ms, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MpjLaunchException("interrupted while waiting for the MPJ daemon");
        }
    }
}
