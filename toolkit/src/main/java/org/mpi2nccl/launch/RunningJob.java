package org.mpi2nccl.launch;

import org.mpi2nccl.launch.rank.JobHome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.mpi2nccl.launch.rank.RankFailureRecord;
import org.mpi2nccl.launch.rank.Wire;

/**
 * A job that was started by {@link JobBuilder#start()}. It always ends: when every rank's main has
 * returned, when a rank throws (the others are stopped about a second later), at its timeout, or on
 * {@link #stop()}. When it has ended, no process it started is left running.
 *
 * <p>Processes it owns ({@link #pids()}): multicore, one JVM running all ranks as threads; niodev, the
 * MPJ daemon it started (whose children are the rank JVMs) and MPJ's starter; under Slurm, srun, whose step holds
 * them ({@link SlurmStep}). They also end when this JVM
 * ends, however it ends (a shutdown hook, and each of them watches its stdin pipe from this JVM:
 * {@link org.mpi2nccl.launch.rank.Lifeline}).
 *
 * <p>The command lines are {@link JobCommands}'; how an ended job is reported is {@link JobEnding}.
 */
public final class RunningJob implements AutoCloseable {
    /** After a rank failed, how long the others may go on printing before everything is stopped. */
    static final Duration FAILURE_GRACE = Duration.ofMillis(1000);
    /** After every rank's main returned, how long their JVMs may take to end (MPI.Finalize) before being stopped. */
    static final Duration FINALIZE_GRACE = Duration.ofSeconds(2);
    private static final AtomicInteger JOBS = new AtomicInteger();
    /** Jobs not yet ended: stopped by a shutdown hook when this JVM exits while they run. */
    private static final java.util.Set<RunningJob> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(RunningJob::cleanUp), "mpj-jobs-shutdown"));
    }

    private final JobBuilder spec;
    private final int id = JOBS.incrementAndGet();
    private final List<Process> owned = new CopyOnWriteArrayList<>();
    private final List<Long> pidsSeen = new CopyOnWriteArrayList<>();
    private final StoppedRanks stopped = new StoppedRanks();
    private final JobRecords records;
    private final List<ProcessHandle> handlesSeen = new CopyOnWriteArrayList<>();
    private final CompletableFuture<JobResult> future = new CompletableFuture<>();
    private final List<Thread> pumps = new ArrayList<>();
    private volatile boolean stopRequested;
    private long startNanos;
    private Path jobHome;
    private MpjDaemon daemon;
    private PrivateNetwork network;   // a local niodev job's own network (PrivateNetwork), or null
    private Process main;
    private Launcher launcher;

    RunningJob(JobBuilder spec) {
        this.spec = spec;
        this.records = new JobRecords(spec.ranks, spec.lineListeners);
    }

    // --- starting ---------------------------------------------------------------------------------------

    RunningJob launch() {
        spec.validate();
        Path java = spec.javaBin();
        MpjHome home = MpjHome.locate(spec.mpjHome);
        List<String> cp = spec.rankClasspath();
        spec.checkMainClass(cp);
        launcher = spec.launcherToUse();
        startNanos = System.nanoTime();
        try {
            main = launcher == Launcher.SLURM ? startSlurmStep(java, cp)
                    : spec.device == MpjDevice.MULTICORE ? startProcess(JobCommands.multicore(spec, java, home, cp))
                    : startNiodev(java, home, cp);
        } catch (RuntimeException e) {
            cleanUp();
            throw e;
        }
        owned.add(main);
        LIVE.add(this);
        pump(main.getInputStream(), false);
        pump(main.getErrorStream(), true);
        Thread watcher = new Thread(this::watch, "mpj-job-" + id + "-watcher");
        watcher.setDaemon(true);
        watcher.start();
        return this;
    }

    /** The whole job as one Slurm step (SlurmStep), whose lines come back as if the ranks were ours. */
    private Process startSlurmStep(Path java, List<String> cp) {
        return startProcess(SlurmStep.command(spec, java, cp, workingDirectory(), SlurmNodes.query(), System.getenv()));
    }

    private Process startNiodev(Path java, MpjHome home, List<String> cp) {
        int port;
        Path machines;
        if (spec.useRunningDaemons) {
            port = spec.daemonPort;
            machines = spec.machinesFile.toAbsolutePath();
            // Not probed here: a bare connection makes MPJ's daemon log a stack trace. If a daemon is missing,
            // MPJ's starter says so and finish() turns that into an MpjLaunchException.
            jobHome = home.createJobHome(port, JobBuilder.freePort(), JobBuilder.freePort());
            cp = JobCommands.withMpjRuntime(home, cp);
        } else {
            List<String> prefix = List.of();
            if (spec.machinesFile == null) {   // every rank on this machine: nobody else needs to reach them
                String policy = spec.env.getOrDefault(PrivateNetwork.ENV, System.getenv(PrivateNetwork.ENV));
                network = PrivateNetwork.forJob(PrivateNetwork.policy(policy)).orElse(null);
                if (network != null) prefix = network.enter();
            }
            daemon = startLocalDaemon(java, home, prefix);
            port = daemon.port();
            owned.add(daemon.process());
            daemon.onTaggedLine(raw -> onRawLine(raw, false));
            machines = spec.machinesFile != null ? spec.machinesFile.toAbsolutePath() : writeLocalMachines();
        }
        ProcessBuilder starter = JobCommands.niodev(spec, java, jobHome, cp, machines, port, workingDirectory());
        if (network != null) starter.command().addAll(0, network.enter());
        return startProcess(starter);
    }

    /** A daemon on a free port (or the one asked for); a port taken meanwhile by someone else is retried. */
    private MpjDaemon startLocalDaemon(Path java, MpjHome home, List<String> prefix) {
        boolean own = !prefix.isEmpty();   // in the job's private network
        if (spec.daemonPort != null && !own) JobBuilder.checkPortFree(spec.daemonPort);
        MpjLaunchException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int[] ports = own ? PrivateNetwork.ports(spec.daemonPort)
                    : new int[] {spec.daemonPort != null ? spec.daemonPort : JobBuilder.freePort(), JobBuilder.freePort(),
                                 JobBuilder.freePort()};
            JobHome.delete(jobHome);
            jobHome = home.createJobHome(ports[0], ports[1], ports[2]);
            MpjDaemon d = MpjDaemon.start(jobHome, ports[0], java, spec.env, prefix, List.of(JobBuilder.NATIVE_ACCESS));
            pidsSeen.add(d.process().pid());
            try {
                d.awaitListening(Duration.ofSeconds(20));
                return d;
            } catch (MpjLaunchException e) {
                d.close();
                last = e;
                if (spec.daemonPort != null || Thread.currentThread().isInterrupted()) break;   // an interrupt: no retry
            }
        }
        throw last;
    }

    private Path writeLocalMachines() {
        try {
            return Files.writeString(jobHome.resolve("machines"), "localhost\n");
        } catch (IOException e) {
            throw new MpjLaunchException("cannot write the machines file in " + jobHome + ": " + e.getMessage());
        }
    }

    private Path workingDirectory() {
        return (spec.workingDirectory != null ? spec.workingDirectory : Path.of("")).toAbsolutePath();
    }

    private Process startProcess(ProcessBuilder pb) {
        pb.directory(workingDirectory().toFile());
        try {
            Process p = pb.start();
            pidsSeen.add(p.pid());
            return p;
        } catch (IOException e) {
            throw new MpjLaunchException("cannot start " + pb.command().get(0) + ": " + e.getMessage()
                    + ": check that Java is installed");
        }
    }

    // --- output -----------------------------------------------------------------------------------------

    private void pump(InputStream in, boolean stderrPipe) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String raw; (raw = r.readLine()) != null; ) onRawLine(raw, stderrPipe);
            } catch (IOException ignored) {
                // the process was stopped
            }
        }, "mpj-job-" + id + (stderrPipe ? "-stderr" : "-stdout"));
        t.setDaemon(true);
        pumps.add(t);
        t.start();
    }

    /** A line of a process of the job; in a Slurm step it also goes on to the launcher outside (SlurmStep). */
    private void onRawLine(String raw, boolean stderr) {
        if (spec.relay) SlurmStep.relay(raw, stderr);
        records.onRawLine(raw, stderr);
    }

    // --- watching and ending ----------------------------------------------------------------------------

    private void watch() {
        long deadline = startNanos + spec.timeout.toNanos();
        long failedAt = 0;
        long allReturnedAt = 0;
        boolean timedOut = false;
        boolean lingering = false;   // every main returned, JVMs still there FINALIZE_GRACE later: no MPI.Finalize
        int polls = 0;
        synchronized (records) {
            while (true) {
                if (polls++ % 4 == 0) pids();   // remember rank JVMs while they live, for pids()
                if (stopRequested) break;
                if (records.anyFailed() && failedAt == 0) failedAt = System.nanoTime();
                if (failedAt != 0 && !records.anyFailed()) failedAt = 0;   // a death withdrawn: its rank returned
                if (failedAt != 0 && System.nanoTime() - failedAt > FAILURE_GRACE.toNanos()) break;
                if (allReturnedAt == 0 && records.allReturned()) {
                    allReturnedAt = System.nanoTime();
                }
                if (allReturnedAt != 0 && System.nanoTime() - allReturnedAt > FINALIZE_GRACE.toNanos()) {
                    lingering = true;
                    break;
                }
                if (!main.isAlive()) break;
                if (daemon != null && !daemon.isAlive()) break;
                if (System.nanoTime() > deadline) {
                    timedOut = true;
                    break;
                }
                if (polls % 4 == 0) records.deliverStallWarning();
                if (polls % 20 == 0) {
                    for (String s : stopped.look(handlesSeen)) records.deliver(new RankLine(-1, RankLine.Stream.STDERR, s));
                }
                try {
                    records.wait(50);
                } catch (InterruptedException e) {
                    stopRequested = true;
                }
            }
        }
        String finalizeNote = lingering ? records.lingeringNote(daemon != null, FINALIZE_GRACE) : null;
        records.stopping();
        // The main process may have ended a moment before its last lines were read: drain them first.
        if (!main.isAlive()) joinPumps(Duration.ofSeconds(2));
        cleanUp();
        joinPumps(Duration.ofSeconds(2));
        finish(timedOut, finalizeNote);
    }

    private void joinPumps(Duration max) {
        long end = System.nanoTime() + max.toNanos();
        for (Thread t : pumps) {
            try {
                t.join(Math.max(1, (end - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void cleanUp() {
        List<ProcessHandle> roots = new ArrayList<>();
        for (Process p : owned) roots.add(p.toHandle());
        for (ProcessHandle h : ProcessTree.withDescendants(roots)) {
            if (!pidsSeen.contains(h.pid())) pidsSeen.add(h.pid());
        }
        ProcessTree.destroy(roots, Duration.ofSeconds(10));
        // A rank JVM whose daemon was killed is no descendant of ours any more; its handle knows it (a handle
        // never matches a later process that got the same pid).
        ProcessTree.destroy(handlesSeen.stream().filter(ProcessHandle::isAlive).toList(), Duration.ofSeconds(5));
        if (daemon != null) daemon.close();
        if (network != null) network.close();
        JobHome.delete(jobHome);
    }

    private void finish(boolean timedOut, String finalizeNote) {
        LIVE.remove(this);
        JobResult result;
        List<RankFailure> failed;
        List<String> mpjSaid;
        if (finalizeNote != null) records.deliver(new RankLine(-1, RankLine.Stream.STDERR, finalizeNote));
        List<String> startErrors;
        String stallReport;
        synchronized (records) {
            records.failures.addAll(records.deaths.failures());
            result = new JobResult(spec.device, records.statuses, records.lines, records.failures, records.reports,
                    Duration.ofNanos(System.nanoTime() - startNanos));
            failed = List.copyOf(records.failures);
            mpjSaid = records.mpjLines.stream().filter(l -> !MpjChatter.isChatter(l)).toList();
            startErrors = List.copyOf(records.startErrors);
            stallReport = records.stalls.last();
        }
        // A JVM that cannot start also ends (exit status 1): its own words say more than the status.
        boolean threw = failed.stream().anyMatch(f -> !RankFailure.DIED.equals(f.type()));
        RuntimeException why = !startErrors.isEmpty() && !threw ? JobEnding.couldNotStart(startErrors)
                : JobEnding.why(spec, result, failed, timedOut, stopRequested, mpjSaid, main, daemon, stallReport);
        if (why == null) {
            future.complete(result);
        } else {
            future.completeExceptionally(why);
        }
    }

    // --- the caller's side ------------------------------------------------------------------------------

    /**
     * Waits until the job ends; returns its result or throws why it failed: {@link MpjJobException} (a rank
     * failed, timeout, stopped) or {@link MpjLaunchException} (MPJ could not start the ranks: no daemon).
     */
    public JobResult awaitResult() {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new MpjJobException("interrupted while waiting for the job: stopped it", null, List.of());
        } catch (ExecutionException e) {
            throw (RuntimeException) e.getCause();
        }
    }

    /**
     * Waits at most {@code wait}: the result when the job ended in time (or the exception why it failed),
     * empty while it still runs.
     */
    public Optional<JobResult> awaitResult(Duration wait) {
        try {
            return Optional.of(future.get(wait.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException e) {
            throw (RuntimeException) e.getCause();
        }
    }

    /** Completes with the result (or the job's exception) when the job ends. */
    public CompletableFuture<JobResult> future() {
        return future.copy();
    }

    /** Stops every rank now (the result then completes with an {@link MpjJobException}); waits until stopped. */
    public void stop() {
        stopRequested = true;
        synchronized (records) {
            records.notifyAll();
        }
        try {
            future.handle((r, e) -> null).get(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the watcher is stuck: kill directly
            cleanUp();
        }
    }

    /** True until the job has ended and its processes are gone. */
    public boolean isAlive() {
        return !future.isDone();
    }

    /** Every process id this job started or saw under its processes (daemon, starter, rank JVMs). */
    public List<Long> pids() {
        List<ProcessHandle> roots = owned.stream().map(Process::toHandle).toList();
        for (ProcessHandle h : ProcessTree.withDescendants(roots)) {
            if (!pidsSeen.contains(h.pid())) {
                pidsSeen.add(h.pid());
                handlesSeen.add(h);
            }
        }
        return List.copyOf(pidsSeen);
    }

    /** Who started the job's processes: this JVM, or Slurm (one job step). */
    public Launcher launcher() {
        return launcher;
    }

    /** Lines received so far. */
    public List<RankLine> linesSoFar() {
        synchronized (records) {
            return List.copyOf(records.lines);
        }
    }

    /** Stops the job if it still runs. */
    @Override
    public void close() {
        if (isAlive()) stop();
    }
}
