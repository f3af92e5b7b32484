package org.mpi2nccl.kernel.mpj;

import com.google.gson.JsonObject;
import org.mpi2nccl.kernel.output.CellOutput;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.kernel.jshell.Completion;
import org.mpi2nccl.kernel.jshell.SplitCell;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.RankLine;
import org.mpi2nccl.launch.RunningJob;
import tech.tablesaw.api.Table;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;

/**
 * The kernel's side of N rank engines ({@code %mpj start -np N}): an MPJ job started through the toolkit's
 * launcher whose ranks run {@link RankEngine}, and one link per rank. {@link #start} returns them ready for cells
 * ({@link EngineStartup}).
 *
 * <p>{@link #run} sends a cell to every rank at once (so collectives inside it work) and collects each rank's
 * outputs and result ({@link CellCollector}). It never waits forever: an interrupt is passed to every rank, ranks
 * that do not stop within {@link #STOP_GRACE} are taken down with the whole job; when some ranks failed and the
 * others are still running after {@link #STRAGGLER_GRACE} (typically blocked in a collective that the failed ranks
 * never reached) they are interrupted; a rank whose link drops has died: it is reported by number, the other ranks
 * are stopped and the kernel goes on. When the engines are closed, no process of theirs is left.
 */
public final class RankEngines implements AutoCloseable {
    public static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    public static final Duration STOP_GRACE = Duration.ofSeconds(5);
    public static final Duration STRAGGLER_GRACE = Duration.ofSeconds(5);
    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(8);
    /** How long ranks may wait for others before the stall inspector warns ({@code %mpj config --stall}). */
    public static final Duration DEFAULT_STALL = Duration.ofSeconds(10);
    private static volatile Duration stall = DEFAULT_STALL;

    /**
     * A rank engine as the kernel knows it. {@code gpu} is its CUDA device (-1: none), {@code gpuNote} why a GPU
     * host's engine has none (or "").
     */
    public record Rank(int rank, long pid, String host, int localRank, String java, int gpu, String gpuName,
                       String gpuNote) {
        Rank withGpu(int gpu, String gpuName, String gpuNote) {
            return new Rank(rank, pid, host, localRank, java, gpu, gpuName, gpuNote);
        }

        /** "GPU 1 (NVIDIA H200)", or "none". */
        public String gpuLabel() {
            return gpu >= 0 ? "GPU " + gpu + " (" + gpuName + ")" : "none";
        }
    }

    private final MpjDevice device;
    private final RunningJob job;
    private final EngineLink server;
    private final Map<Integer, EngineWire> wires = new HashMap<>();
    private final List<Rank> ranks = new ArrayList<>();
    private final EngineEvents events = new EngineEvents();
    private final RecentLines recentLines = new RecentLines();
    private final PrintStream log;
    private final CompletionRequests completions;
    private final OutOfStep outOfStep = new OutOfStep();
    private final long startedNanos;
    private Duration startupTime = Duration.ZERO;
    private volatile boolean cellRunning;
    private volatile boolean interruptRequested;
    private volatile boolean closed;
    private long nextCellId;
    private int cellsRun;

    /** Engines whose ranks are linked but not yet welcomed: {@link EngineStartup} takes them from here. */
    RankEngines(long startedNanos, MpjDevice device, RunningJob job, EngineLink server, PrintStream log,
                List<EngineWire> wiresByRank, List<Rank> ranks) {
        this.startedNanos = startedNanos;
        this.device = device;
        this.job = job;
        this.server = server;
        this.log = log;
        for (int r = 0; r < wiresByRank.size(); r++) {
            wires.put(r, wiresByRank.get(r));
        }
        this.ranks.addAll(ranks);
        this.completions = new CompletionRequests(wiresByRank.get(0), events);
    }

    /**
     * Starts {@code n} rank engines and waits until every one is ready for cells.
     *
     * @param classPath extra class path entries for the ranks' cells (the kernel's %jars)
     * @param log       where lines that belong to no cell go (the kernel's own log)
     */
    public static RankEngines start(int n, MpjDevice device, List<String> classPath, PrintStream log)
            throws CellError {
        return start(n, device, classPath, EngineJvmOptions.fromProperty(), log);
    }

    /** As {@link #start(int, MpjDevice, List, PrintStream)}, with options for the engines' JVMs. */
    public static RankEngines start(int n, MpjDevice device, List<String> classPath, List<String> jvmArgs,
                                    PrintStream log) throws CellError {
        return EngineStartup.start(n, device, classPath, jvmArgs, null, log);
    }

    /**
     * As {@link #start(int, MpjDevice, List, PrintStream)}; under Slurm the engines' step asks for {@code gpus} GPUs
     * (null: one a rank, at most a node's; 0: none, for lessons without a GPU on a lab whose GPUs others need).
     */
    public static RankEngines start(int n, MpjDevice device, List<String> classPath, Integer gpus, PrintStream log)
            throws CellError {
        return EngineStartup.start(n, device, classPath, EngineJvmOptions.fromProperty(), gpus, log);
    }

    /** Starts the link readers; from now on, the launcher's lines in {@code early} come through the same queue. */
    void listen(BlockingQueue<EngineEvent> early) {
        events.readLinks(wires);
        events.forwardLines(early, () -> closed);
    }

    /** Notes the GPU that {@code rank} took when it got ready. */
    void setGpu(int rank, int gpu, String gpuName, String gpuNote) {
        ranks.set(rank, ranks.get(rank).withGpu(gpu, gpuName, gpuNote));
    }

    /** Every rank is ready: the start took until now. */
    void startedUp() {
        startupTime = Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /**
     * Runs {@code code} on every rank at once and waits for every rank's result. The cell comes split into
     * snippets ({@link org.mpi2nccl.kernel.jshell.JShellEvaluator#split}): engines do not split cells themselves.
     *
     * @throws CellError (kind ENGINE) when a rank died or did not stop: the engines are then closed
     */
    public RankResults run(SplitCell code, RankOutput output) throws CellError {
        if (closed) {
            throw engineError("the rank engines were stopped: start new ones with %mpj start -np N");
        }
        outOfStep.beforeCell();
        long id;
        synchronized (this) {
            id = ++nextCellId;
            cellRunning = true;
            interruptRequested = false;
        }
        try {
            JsonObject exec = EngineWire.exec(id, code);
            exec.addProperty("shownBytes", shownBytesPerRank(wires.size()));
            for (int r : wires.keySet()) {
                send(r, exec);
            }
            RankResults results = new CellCollector(this).collect(id, output);
            outOfStep.after(results);
            cellsRun++;
            return results;
        } finally {
            cellRunning = false;
        }
    }

    /**
     * How much of one cell's output each of {@code n} ranks sends to the kernel ({@link RankCellOutput}; the
     * rest goes to a file): half the cell's shown output shared out, because the {@code [rank k] } the kernel puts
     * before every line can double short lines, and at least 16 KB so that each of many ranks shows something
     * (the kernel's own cap, {@link CellOutput#SHOWN_BYTES}, still holds then).
     */
    static long shownBytesPerRank(int n) {
        return Math.max(16 << 10, CellOutput.SHOWN_BYTES / (2L * n));
    }

    /** Tab completion at {@code at} of a {@code %%mpj} cell's body, against rank 0's state; null if none. */
    public Completion complete(String code, int at) {
        return closed ? null : completions.complete(code, at);
    }

    /** Shift-Tab at {@code at} of a {@code %%mpj} cell's body, against rank 0's state; null if none. */
    public String inspect(String code, int at) {
        return closed ? null : completions.inspect(code, at);
    }

    /** Which ranks the last interrupt stopped inside a communication call (null: none; see {@link OutOfStep}). */
    String outOfStep() {
        return outOfStep.note();
    }

    /** Interrupts the running cell on every rank (called from the kernel's interrupt, on another thread). */
    public void interrupt() {
        if (cellRunning && !closed) {
            interruptRequested = true;
            sendInterrupt(wires.keySet());
        }
    }

    void sendInterrupt(Set<Integer> which) {
        sendToLive(which, EngineWire.message("interrupt"));
    }

    /** The stall inspector's delay for every engine (zero: off). */
    public static void setStall(Duration d) {
        stall = d;
    }

    public static Duration stall() {
        return stall;
    }

    /** Asks {@code which} ranks where their cell {@code id} is ({@link StallInspector}). */
    void sendWhere(Set<Integer> which, long id) {
        if (which.isEmpty()) return;
        JsonObject m = EngineWire.message("where");
        m.addProperty("id", id);
        sendToLive(which, m);
    }

    /** Adds class path entries to every rank's cells (the kernel's %jars). */
    public void addClassPath(List<String> entries) throws CellError {
        JsonObject m = EngineWire.message("classpath");
        m.add("entries", EngineWire.jsonArray(entries));
        for (int r : wires.keySet()) {
            send(r, m);
        }
    }

    /** A rank's link dropped while a cell ran: report it, stop the others, close everything. */
    CellError rankDied(int rank) {
        // In multicore all ranks share a JVM: give the other links a moment to drop too, to name them all.
        Set<Integer> dead = new TreeSet<>(List.of(rank));
        long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
        while (System.nanoTime() < until) {
            EngineEvent ev = events.pollUntil(until);
            if (ev == null) {
                break;                          // the moment is over (or this thread was interrupted)
            } else if (ev.line() != null) {
                remember(ev.line());
            } else if (ev.message() == null) {
                dead.add(ev.rank());
            }
        }
        String who = RankResults.ranksLabel(new ArrayList<>(dead));
        Set<Integer> others = new TreeSet<>(wires.keySet());
        others.removeAll(dead);
        String message = who + " died while running the cell"
                + (others.isEmpty() ? "" : "; the other ranks (" + others + ") were stopped")
                + ". Start new engines with %mpj start.";
        return takeDown(message, dead);
    }

    CellError takeDown(String message, Set<Integer> about) {
        String recent = recent(about);
        String outcome = stopJob();
        List<String> lines = new ArrayList<>();
        lines.add(message);
        if (!outcome.isEmpty()) {
            lines.add("The job: " + outcome);
        }
        if (!recent.isEmpty()) {
            lines.addAll(List.of(recent.strip().split("\n")));
        }
        return new CellError(CellError.Kind.ENGINE, "RankEngineFailure", message, lines);
    }

    /** Ends the job now (no shutdown handshake) and closes the links; returns what the launcher said. */
    private String stopJob() {
        closed = true;
        wires.values().forEach(EngineWire::close);
        server.close();
        job.stop();
        return EngineHandshake.jobOutcome(job);
    }

    /** One row per rank: where it runs and whether its process is alive. */
    public Table status() {
        String state = cellRunning ? "running a cell" : "idle";
        String where = job.launcher() == org.mpi2nccl.launch.Launcher.SLURM ? ", one Slurm job step" : "";
        return EngineStatus.table(ranks.size() + " rank engines (" + device + where + ", up "
                + Duration.ofNanos(System.nanoTime() - startedNanos).toSeconds() + " s, " + cellsRun + " cells)",
                ranks, closed, state);
    }

    public int size() {
        return ranks.size();
    }

    public MpjDevice device() {
        return device;
    }

    public List<Rank> ranks() {
        return List.copyOf(ranks);
    }

    /** How long {@link #start} took, from launch to every rank ready. */
    public Duration startupTime() {
        return startupTime;
    }

    /** Every process of the engines' job (rank JVMs, and niodev's daemon and starter). */
    public List<Long> pids() {
        List<Long> all = new ArrayList<>(job.pids());
        ranks.forEach(r -> { if (!all.contains(r.pid())) all.add(r.pid()); });
        return all;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Asks every rank to end, waits a little, then stops whatever is left. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        sendToLive(wires.keySet(), EngineWire.message("shutdown"));
        try {
            job.awaitResult(SHUTDOWN_GRACE);
        } catch (RuntimeException e) {
            // ended badly: the processes are gone all the same
        }
        stopJob();
    }

    void send(int rank, JsonObject m) throws CellError {
        try {
            wires.get(rank).send(m);
        } catch (IOException e) {
            throw rankDied(rank);
        }
    }

    /** Sends {@code m} to each of {@code which} that is still there; a rank that is gone is its link reader's news. */
    private void sendToLive(Set<Integer> which, JsonObject m) {
        for (int r : which) {
            try {
                wires.get(r).send(m);
            } catch (IOException e) {
                // that rank is gone; its link reader reports it
            }
        }
    }

    /** The ranks' numbers, one per link. */
    Set<Integer> rankNumbers() {
        return wires.keySet();
    }

    boolean interruptRequested() {
        return interruptRequested;
    }

    /** The next event, waiting at most {@code millis}; null if none came. */
    EngineEvent nextEvent(long millis) throws InterruptedException {
        return events.poll(millis);
    }

    /** The next event, waiting until {@code deadlineNanos} (System.nanoTime); null if none came or interrupted. */
    EngineEvent nextEventUntil(long deadlineNanos) {
        return events.pollUntil(deadlineNanos);
    }

    void remember(RankLine line) {
        recentLines.add(line);
        if (!cellRunning || line.rank() < 0) {
            log(line.toString());
        }
    }

    String recent(Set<Integer> about) {
        return recentLines.about(about);
    }

    void log(String line) {
        log.println("[mpj engines] " + line);
    }

    static CellError engineError(String message) {
        return new CellError(CellError.Kind.ENGINE, "RankEngineError", message, List.of(message.split("\n")));
    }
}
