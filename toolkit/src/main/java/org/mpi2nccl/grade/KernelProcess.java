package org.mpi2nccl.grade;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.mpi2nccl.files.ProcStat;

/**
 * One student's notebook run in a JVM of its own ({@code mpi2nccl execute} with this JVM's Java and class path),
 * so that nothing a student's code does (a static field, a stuck thread, {@code System.exit}) reaches the next
 * student. The run has a time limit; past it the JVM and every process it started (its rank engines) are killed.
 * Either way no process of the run is left: the descendants seen while it ran are checked and killed at the end.
 */
final class KernelProcess {
    /** How often the run's descendants (rank engines) are noted, so that orphans can be found and killed. */
    private static final long WATCH_MS = 250;
    private static final Duration KILL_PATIENCE = Duration.ofSeconds(10);

    /**
     * How the run ended: exit code (-1 when killed), why it was killed (null when it ended by itself), and every pid
     * it had.
     */
    record Ended(int exitCode, String killedFor, Set<Long> pids, Duration elapsed) {
        boolean killed() {
            return killedFor != null;
        }
    }

    private KernelProcess() {
    }

    /**
     * The command that runs {@code args} of the toolkit's command line in a fresh JVM like this one, with
     * {@code jvmOptions} added.
     */
    static List<String> command(List<String> jvmOptions, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            // the settings that matter to cells; not agents or debuggers of this JVM
            if (a.startsWith("--enable-native-access") || a.startsWith("-Xmx") || a.startsWith("--add-opens")
                    || a.startsWith("-Dmpi2nccl")) {
                cmd.add(a);
            }
        }
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("org.mpi2nccl.cli.Main");
        cmd.addAll(args);
        return cmd;
    }

    /**
     * Runs {@code command} in {@code dir} with {@code env} added, output to {@code log}, for at most {@code limit} and
     * with at most {@code processes} processes under it at once (a run that starts more, a fork bomb or a loop of
     * {@code ProcessBuilder}s, is killed at the next look, at most {@value #WATCH_MS} ms later).
     */
    static Ended run(List<String> command, Path dir, Map<String, String> env, File log, Duration limit, int processes)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().putAll(env);
        long start = System.nanoTime();
        Process p = pb.start();
        // handles, not bare pids: a handle knows its process's start time, so a pid reused later is never killed
        Map<Long, ProcessHandle> seen = new java.util.HashMap<>();
        seen.put(p.pid(), p.toHandle());
        long deadline = start + limit.toNanos();
        String killedFor = null;
        while (!p.waitFor(WATCH_MS, TimeUnit.MILLISECONDS)) {
            List<ProcessHandle> under = p.descendants().toList();
            under.forEach(d -> seen.putIfAbsent(d.pid(), d));
            long alive = under.size();
            if (alive > processes) {
                killedFor = "killed: it ran " + alive + " processes at once, more than the limit of " + processes;
                p.destroyForcibly(); // at once: a fork bomb grows while a shutdown hook runs
                break;
            }
            if (System.nanoTime() > deadline) {
                killedFor = "killed at the " + limit.toSeconds() + " s limit";
                p.destroy(); // SIGTERM first: its shutdown hook stops the rank engines
                break;
            }
        }
        if (killedFor != null) {
            p.descendants().forEach(d -> seen.putIfAbsent(d.pid(), d));
            if (!p.waitFor(KILL_PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(KILL_PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        killLeftovers(seen.values());
        return new Ended(killedFor != null ? -1 : p.exitValue(), killedFor, new TreeSet<>(seen.keySet()),
                Duration.ofNanos(System.nanoTime() - start));
    }

    /**
     * Kills whichever of {@code processes} still runs (an engine the run could not stop), and waits for it to go. A
     * process that has ended but whose parent has not collected it yet (a zombie: a sandbox's processes, once their
     * namespace is gone, wait for the machine's init to collect them, up to seconds) runs nothing: not waited for.
     */
    static void killLeftovers(java.util.Collection<ProcessHandle> processes) {
        for (ProcessHandle h : processes) {
            if (!h.isAlive() || ProcStat.ended(h.pid())) continue;
            h.descendants().forEach(ProcessHandle::destroyForcibly);
            h.destroyForcibly();
            long deadline = System.nanoTime() + KILL_PATIENCE.toNanos();
            while (h.isAlive() && !ProcStat.ended(h.pid()) && System.nanoTime() < deadline) {
                try {
                    h.onExit().get(20, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException again) {
                    // look again: it may have become a zombie
                } catch (Exception e) {
                    break;   // the caller checks the pids again and reports any left
                }
            }
        }
    }
}
