package org.mpi2nccl.kernel.mpj;

import com.google.gson.JsonObject;
import org.mpi2nccl.kernel.output.CellOutputFolder;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.launch.MpjDevice;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.Collectors;

import static org.mpi2nccl.kernel.mpj.RankEngines.START_TIMEOUT;
import static org.mpi2nccl.kernel.mpj.RankEngines.engineError;

/**
 * The start of N rank engines ({@link RankEngines#start}), from launch to every rank ready: the handshake
 * ({@link EngineHandshake}) links each rank to the kernel; then each rank gets its welcome (its local rank, the
 * cells' class path, where cut output goes) and answers "ready" with the GPU it took, if any. A rank that dies, a
 * start that takes longer than {@link RankEngines#START_TIMEOUT} or an interrupt fails the start, and every process
 * started is stopped.
 *
 * <p>Separate from {@link RankEngines}, which owns the engines from the moment they are linked to their close,
 * because this runs once and reads best whole: it tells what "the engines are up" means.
 */
final class EngineStartup {
    private EngineStartup() {
    }

    /** Starts {@code n} rank engines and waits until every one is ready for cells ({@code gpus}: a Slurm step's). */
    static RankEngines start(int n, MpjDevice device, List<String> classPath, List<String> jvmArgs, Integer gpus,
                             PrintStream log) throws CellError {
        if (n < 1) {
            throw engineError("a job needs at least 1 rank, not " + n + ": use %mpj start -np 2 (or more)");
        }
        long t0 = System.nanoTime();
        BlockingQueue<EngineEvent> early = new LinkedBlockingQueue<>();
        EngineHandshake.Launched launched = EngineHandshake.launch(n, device, jvmArgs, gpus, early, t0);
        try {
            RankEngines engines = new RankEngines(t0, device, launched.job(), launched.server(), log, launched.wires(),
                    launched.ranks());
            welcome(engines, classPath);
            engines.listen(early);
            awaitReady(engines, t0 + START_TIMEOUT.toNanos());
            engines.startedUp();
            return engines;
        } catch (CellError | RuntimeException e) {
            launched.close();
            throw e instanceof CellError ? (CellError) e : engineError("the rank engines could not be started: " + e);
        }
    }

    /** Sends each rank its welcome: where it stands among the ranks on its host, and what its cells need. */
    private static void welcome(RankEngines engines, List<String> classPath) throws CellError {
        List<RankEngines.Rank> ranks = engines.ranks();
        Map<String, Long> perHost = ranks.stream()
                .collect(Collectors.groupingBy(RankEngines.Rank::host, Collectors.counting()));
        for (RankEngines.Rank r : ranks) {
            JsonObject welcome = EngineWire.message("welcome");
            welcome.addProperty("localRank", r.localRank());
            welcome.addProperty("localSize", perHost.get(r.host()));
            welcome.add("classpath", EngineWire.jsonArray(classPath));
            welcome.addProperty("ownJvm", engines.device() == MpjDevice.NIODEV); // only then may it load CUDA
            welcome.addProperty("outputFolder", outputFolder(engines));
            engines.send(r.rank(), welcome);
        }
    }

    /** Waits until every rank said it is ready, noting the GPU each took; fails past {@code deadline}. */
    private static void awaitReady(RankEngines engines, long deadline) throws CellError {
        int n = engines.size();
        Set<Integer> waiting = new TreeSet<>(engines.rankNumbers());
        while (!waiting.isEmpty()) {
            EngineEvent ev = engines.nextEventUntil(Math.min(deadline, System.nanoTime() + 100_000_000L));
            if (Thread.currentThread().isInterrupted()) {
                throw startInterrupted(n - waiting.size(), n);
            }
            if (ev == null && System.nanoTime() < deadline) {
                continue;
            }
            if (ev == null) {
                throw engineError("rank engines " + waiting + " did not get ready within " + START_TIMEOUT.toSeconds()
                        + " s" + engines.recent(waiting));
            }
            if (ev.line() != null) {
                engines.remember(ev.line());
            } else if (ev.message() == null) {
                throw engineError("rank " + ev.rank() + " died while starting" + engines.recent(Set.of(ev.rank())));
            } else if ("ready".equals(EngineWire.str(ev.message(), "type"))) {
                JsonObject m = ev.message();
                engines.setGpu(ev.rank(), m.has("gpu") ? m.get("gpu").getAsInt() : -1, EngineWire.str(m, "gpuName"),
                        EngineWire.str(m, "gpuNote"));
                waiting.remove(ev.rank());
            }
        }
    }

    /** The kernel's output folder, for the ranks' cut output; "" if it cannot be made (the rest is then not kept). */
    private static String outputFolder(RankEngines engines) {
        try {
            return CellOutputFolder.get().toString();
        } catch (IOException | RuntimeException e) {
            engines.log("no folder for cut cell output: " + e);
            return "";
        }
    }

    /** The kernel was interrupted during {@code %mpj start}: the caller stops what was started. */
    static CellError startInterrupted(int ready, int n) {
        Thread.interrupted();   // handled: the kernel's next cell must not see it
        return new CellError(CellError.Kind.INTERRUPTED, "Interrupted", "the start of " + n + " rank engines was"
                + " interrupted (" + ready + " were up): every process started was stopped",
                List.of("the start of " + n + " rank engines was interrupted (" + ready + " were up): every process"
                        + " started was stopped; start again with %mpj start -np N"));
    }
}
