package org.mpi2nccl.kernel.mpj;

import com.google.gson.JsonObject;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.MpjJobException;
import org.mpi2nccl.launch.RunningJob;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The start of a rank-engine job: the kernel opens its socket ({@link EngineLink}) and launches the job through the
 * toolkit's launcher ({@link #launch}); each rank connects to the kernel's socket and says hello with the job's token;
 * the kernel keeps one link per rank and learns who is where (pid, host, local rank). A connection without the
 * token is not one of ours and is dropped; a job that ends or a rank that does not connect within
 * {@link RankEngines#START_TIMEOUT} fails the start with the launcher's last lines.
 */
final class EngineHandshake {
    private static final int LAST_LINES = 30;

    private EngineHandshake() {
    }

    /** The launched job, the kernel's port and one accepted link per rank. */
    record Launched(EngineLink server, RunningJob job, List<EngineWire> wires, List<RankEngines.Rank> ranks) {
        /** Closes the links and the socket and stops the job (a start that failed after the handshake). */
        void close() {
            wires.forEach(w -> { if (w != null) w.close(); });
            job.stop();
            server.close();
        }
    }

    /** How long a connection may take to say hello before it is dropped. */
    private static final long HELLO_MILLIS = 10_000;
    private static final ScheduledExecutorService HELLO_GUARD = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "engine-hello-guard");
        t.setDaemon(true);
        return t;
    });

    /**
     * Opens the kernel's socket, launches {@code n} ranks of {@link RankEngine} that connect back to it with a fresh
     * token, and accepts their links. The launcher's lines go to {@code early} meanwhile.
     */
    static Launched launch(int n, MpjDevice device, List<String> jvmArgs, Integer gpus, BlockingQueue<EngineEvent> early,
                           long t0) throws CellError {
        EngineLink server;
        try {
            server = EngineLink.open();
        } catch (IOException | RuntimeException e) {
            throw RankEngines.engineError("cannot open the kernel's socket for the rank engines: " + e.getMessage());
        }
        String token = UUID.randomUUID().toString();
        RunningJob job;
        org.mpi2nccl.lab.GpuLease lease = org.mpi2nccl.lab.GpuLease.NONE; // a shared machine's GPUs: one job each
        try {
            lease = org.mpi2nccl.lab.GpuLease.forRankEngines(n, device);
            org.mpi2nccl.launch.JobBuilder builder = lease.applyTo(Mpj.launch(RankEngine.class));
            if (gpus != null) builder.gpus(gpus);
            job = builder
                    .ranks(n)
                    .device(device)
                    .args(server.path().toString())
                    .env(RankEngine.TOKEN_ENV, token) // not an argument: command lines are public
                    .timeout(Duration.ofDays(365)) // engines live as long as the kernel wants them
                    .jvmArgs(jvmArgs.toArray(new String[0]))
                    .onLine(line -> early.add(new EngineEvent(line.rank(), null, line)))
                    .start();
        } catch (RuntimeException e) {
            lease.close();
            server.close();
            throw RankEngines.engineError("the rank engines could not be started: " + e.getMessage());
        }
        org.mpi2nccl.lab.GpuLease held = lease;
        job.future().whenComplete((result, failure) -> held.close()); // the GPUs go back when the job ends
        List<EngineWire> wires = new ArrayList<>();
        try {
            return new Launched(server, job, wires, accept(n, server, token, job, wires, early, t0));
        } catch (CellError | RuntimeException e) {
            new Launched(server, job, wires, List.of()).close();
            throw e instanceof CellError ? (CellError) e
                    : RankEngines.engineError("the rank engines could not be started: " + e);
        }
    }

    /** Compared in constant time, so that the time of a refusal tells a guesser nothing. */
    private static boolean sameToken(String token, String said) {
        return said != null && java.security.MessageDigest.isEqual(token.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                said.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Accepts one link per rank and checks who is on the other side. */
    private static List<RankEngines.Rank> accept(int n, EngineLink server, String token, RunningJob job,
                                        List<EngineWire> wires, BlockingQueue<EngineEvent> early, long t0)
            throws CellError {
        for (int i = 0; i < n; i++) {
            wires.add(null);
        }
        List<JsonObject> hellos = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            hellos.add(null);
        }
        long deadline = t0 + RankEngines.START_TIMEOUT.toNanos();
        int connected = 0;
        while (connected < n) {
            if (System.nanoTime() > deadline) {
                throw RankEngines.engineError("only " + connected + " of " + n + " rank engines connected within "
                        + RankEngines.START_TIMEOUT.toSeconds() + " s" + lastLines(early));
            }
            if (Thread.currentThread().isInterrupted()) {
                throw EngineStartup.startInterrupted(connected, n);
            }
            if (!job.isAlive()) {
                throw RankEngines.engineError("the rank engines' job ended before every rank was up" + jobOutcome(job)
                        + lastLines(early));
            }
            SocketChannel s;
            try {
                s = server.accept(200);
            } catch (IOException e) {
                throw RankEngines.engineError("the kernel's socket for rank engines failed: " + e.getMessage());
            }
            if (s == null) continue;
            EngineWire w = new EngineWire(s);
            try {
                // A connection that says nothing is dropped: closing it ends the read below.
                ScheduledFuture<?> guard = HELLO_GUARD.schedule(w::close, HELLO_MILLIS, TimeUnit.MILLISECONDS);
                JsonObject hello = w.receive();
                guard.cancel(false);
                if (hello == null || !"hello".equals(EngineWire.str(hello, "type")) || !sameToken(token, EngineWire.str(hello, "token"))) {
                    w.close(); // not one of ours
                    continue;
                }
                int rank = hello.get("rank").getAsInt();
                if (rank < 0 || rank >= n || wires.get(rank) != null) {
                    w.close();
                    throw RankEngines.engineError("a rank engine said it is rank " + rank + " of a " + n + "-rank job twice or out"
                            + " of range");
                }
                wires.set(rank, w);
                hellos.set(rank, hello);
                connected++;
            } catch (IOException e) {
                w.close();
            }
        }
        // Local ranks: the order of ranks among those on the same host.
        Map<String, Integer> perHost = new LinkedHashMap<>();
        List<RankEngines.Rank> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            String host = EngineWire.str(hellos.get(r), "host");
            int local = perHost.merge(host, 1, Integer::sum) - 1;
            ranks.add(new RankEngines.Rank(r, hellos.get(r).get("pid").getAsLong(), host, local, EngineWire.str(hellos.get(r), "java"), -1,
                    "", ""));
        }
        return ranks;
    }

    private static String lastLines(BlockingQueue<EngineEvent> early) {
        List<String> lines = early.stream().filter(e -> e.line() != null).map(e -> e.line().toString())
                .collect(Collectors.toList());
        int from = Math.max(0, lines.size() - LAST_LINES);
        return lines.isEmpty() ? "" : "\nlast lines:\n" + String.join("\n", lines.subList(from, lines.size()));
    }

    /** What the launcher says about how the job ended ("" while it runs). */
    static String jobOutcome(RunningJob job) {
        try {
            return job.awaitResult(Duration.ofSeconds(1)).map(r -> ": " + r).orElse("");
        } catch (MpjJobException e) {
            return ": " + e.getMessage();
        } catch (RuntimeException e) {
            return ": " + e;
        }
    }
}
