package org.mpi2nccl.kernel.mpj;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.kernel.jshell.SplitCell;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.MpjJobException;
import org.mpi2nccl.launch.RankLine;
import org.mpi2nccl.launch.RunningJob;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The kernel's side of N rank engines ({@code %mpj start -np N}): an MPJ job started through the toolkit's
 * launcher whose ranks run {@link RankEngine}, and one link per rank.
 *
 * <p>{@link #run} sends a cell to every rank at once (so collectives inside it work) and collects each rank's
 * outputs and result. It never waits forever: an interrupt is passed to every rank, ranks that do not stop within
 * {@link #STOP_GRACE} are taken down with the whole job; when some ranks failed and the others are still
 * running after {@link #STRAGGLER_GRACE} (typically blocked in a collective that the failed ranks never
 * reached) they are interrupted; a rank whose link drops has died: it is reported by number, the other ranks are
 * stopped and the kernel goes on. When the engines are closed, no process of theirs is left.
 */
public final class RankEngines implements AutoCloseable {
    public static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    public static final Duration STOP_GRACE = Duration.ofSeconds(5);
    public static final Duration STRAGGLER_GRACE = Duration.ofSeconds(5);
    static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(8);
    private static final int RECENT_LINES = 30;

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

    private record Event(int rank, JsonObject message, RankLine line) {
    }

    private final MpjDevice device;
    private final RunningJob job;
    private final ServerSocket server;
    private final Map<Integer, EngineWire> wires = new HashMap<>();
    private final List<Rank> ranks = new ArrayList<>();
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final Map<Integer, Deque<String>> recentLines = new HashMap<>();
    private final PrintStream log;
    private final long startedNanos;
    private Duration startupTime = Duration.ZERO;
    private volatile boolean cellRunning;
    private volatile boolean interruptRequested;
    private volatile boolean closed;
    private long nextCellId;
    private int cellsRun;

    private RankEngines(long startedNanos, MpjDevice device, RunningJob job, ServerSocket server, PrintStream log,
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
    }

    /**
     * Starts {@code n} rank engines and waits until every one is ready for cells.
     *
     * @param classPath extra class path entries for the ranks' cells (the kernel's %jars)
     * @param log       where lines that belong to no cell go (the kernel's own log)
     */
    public static RankEngines start(int n, MpjDevice device, List<String> classPath, PrintStream log)
            throws CellError {
        return start(n, device, classPath, jvmArgsFromProperty(), log);
    }

    /**
     * Options for the engines' JVMs: {@link #defaultJvmArgs()}, then the system property
     * {@value #JVM_ARGS_PROPERTY} (space-separated, e.g. {@code -Dmpi2nccl.engine.jvmArgs=-Xmx2g} in the
     * kernelspec; a later option wins, so {@code -XX:TieredStopAtLevel=4} there brings C2 back).
     */
    public static final String JVM_ARGS_PROPERTY = "mpi2nccl.engine.jvmArgs";

    static List<String> jvmArgsFromProperty() {
        List<String> args = new ArrayList<>(defaultJvmArgs());
        String s = System.getProperty(JVM_ARGS_PROPERTY, "").trim();
        if (!s.isEmpty()) {
            args.addAll(List.of(s.split("\\s+")));
        }
        return args;
    }

    /**
     * On a machine with few cores, engines compile with C1 only. An engine spends its first seconds in javac
     * (JShell compiling the imports on every rank), and C2 compiling javac's hot methods took a core's worth of
     * CPU away from the ranks: on 2 cores, 4 engines used 5.5 s of CPU to start with C2 and 3.2 s without, and
     * lesson 03's training cell (2 ranks, 3 epochs) took 7-10 s with C2 and 4.3 s without. Notebook cells are
     * too short for C2's faster code to pay back its compile time there. With more cores the compiler threads
     * run beside the ranks, so C2 stays.
     */
    static List<String> defaultJvmArgs() {
        return Runtime.getRuntime().availableProcessors() <= FEW_CORES ? List.of("-XX:TieredStopAtLevel=1") : List.of();
    }

    static final int FEW_CORES = 4;

    /** As {@link #start(int, MpjDevice, List, PrintStream)}, with options for the engines' JVMs. */
    public static RankEngines start(int n, MpjDevice device, List<String> classPath, List<String> jvmArgs,
                                    PrintStream log) throws CellError {
        if (n < 1) {
            throw engineError("a job needs at least 1 rank, not " + n + ": use %mpj start -np 2 (or more)");
        }
        long t0 = System.nanoTime();
        ServerSocket server;
        try {
            server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
            server.setSoTimeout(200);
        } catch (IOException e) {
            throw engineError("cannot open a local port for the rank engines: " + e.getMessage());
        }
        String token = UUID.randomUUID().toString();
        BlockingQueue<Event> early = new LinkedBlockingQueue<>();
        RunningJob job;
        try {
            job = Mpj.launch(RankEngine.class)
                    .ranks(n)
                    .device(device)
                    .args("127.0.0.1", Integer.toString(server.getLocalPort()), token)
                    .timeout(Duration.ofDays(365)) // engines live as long as the kernel wants them
                    .jvmArgs(jvmArgs.toArray(new String[0]))
                    .onLine(line -> early.add(new Event(line.rank(), null, line)))
                    .start();
        } catch (RuntimeException e) {
            closeQuietly(server);
            throw engineError("the rank engines could not be started: " + e.getMessage());
        }
        List<EngineWire> wires = new ArrayList<>();
        try {
            List<Rank> ranks = handshake(n, server, token, job, wires, early, t0);
            RankEngines engines = new RankEngines(t0, device, job, server, log, wires, ranks);
            engines.takeOver(early, classPath);
            engines.startupTime = Duration.ofNanos(System.nanoTime() - t0);
            return engines;
        } catch (CellError | RuntimeException e) {
            wires.forEach(w -> { if (w != null) w.close(); });
            job.stop();
            closeQuietly(server);
            throw e instanceof CellError ? (CellError) e : engineError("the rank engines could not be started: " + e);
        }
    }

    /** Accepts one link per rank and checks who is on the other side. */
    private static List<Rank> handshake(int n, ServerSocket server, String token, RunningJob job,
                                        List<EngineWire> wires, BlockingQueue<Event> early, long t0)
            throws CellError {
        for (int i = 0; i < n; i++) {
            wires.add(null);
        }
        List<JsonObject> hellos = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            hellos.add(null);
        }
        long deadline = t0 + START_TIMEOUT.toNanos();
        int connected = 0;
        while (connected < n) {
            if (System.nanoTime() > deadline) {
                throw engineError("only " + connected + " of " + n + " rank engines connected within "
                        + START_TIMEOUT.toSeconds() + " s" + lastLines(early));
            }
            if (!job.isAlive()) {
                throw engineError("the rank engines' job ended before every rank was up" + jobOutcome(job)
                        + lastLines(early));
            }
            Socket s;
            try {
                s = server.accept();
            } catch (SocketTimeoutException e) {
                continue;
            } catch (IOException e) {
                throw engineError("the kernel's port for rank engines failed: " + e.getMessage());
            }
            try {
                EngineWire w = new EngineWire(s);
                w.setReadTimeout(10_000);
                JsonObject hello = w.receive();
                if (hello == null || !"hello".equals(str(hello, "type")) || !token.equals(str(hello, "token"))) {
                    w.close(); // not one of ours
                    continue;
                }
                w.setReadTimeout(0);
                int rank = hello.get("rank").getAsInt();
                if (rank < 0 || rank >= n || wires.get(rank) != null) {
                    w.close();
                    throw engineError("a rank engine said it is rank " + rank + " of a " + n + "-rank job twice or out"
                            + " of range");
                }
                wires.set(rank, w);
                hellos.set(rank, hello);
                connected++;
            } catch (IOException e) {
                closeQuietly(s);
            }
        }
        // Local ranks: the order of ranks among those on the same host.
        Map<String, Integer> perHost = new LinkedHashMap<>();
        List<Rank> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            String host = str(hellos.get(r), "host");
            int local = perHost.merge(host, 1, Integer::sum) - 1;
            ranks.add(new Rank(r, hellos.get(r).get("pid").getAsLong(), host, local, str(hellos.get(r), "java"), -1,
                    "", ""));
        }
        return ranks;
    }

    /** Sends each rank its welcome, starts the link readers and waits until every rank is ready. */
    private void takeOver(BlockingQueue<Event> early, List<String> classPath) throws CellError {
        Map<String, Long> perHost = ranks.stream().collect(Collectors.groupingBy(Rank::host, Collectors.counting()));
        for (Rank r : ranks) {
            JsonObject welcome = EngineWire.message("welcome");
            welcome.addProperty("localRank", r.localRank());
            welcome.addProperty("localSize", perHost.get(r.host()));
            welcome.add("classpath", jsonArray(classPath));
            welcome.addProperty("ownJvm", device == MpjDevice.NIODEV); // only then may it load CUDA
            send(r.rank(), welcome);
        }
        for (Map.Entry<Integer, EngineWire> e : wires.entrySet()) {
            int rank = e.getKey();
            EngineWire w = e.getValue();
            Thread reader = new Thread(() -> readLink(rank, w), "rank-engine-link-" + rank);
            reader.setDaemon(true);
            reader.start();
        }
        // From now on, launcher lines go through the same queue as the links' messages.
        Thread lines = new Thread(() -> {
            try {
                while (!closed) {
                    Event ev = early.poll(200, TimeUnit.MILLISECONDS);
                    if (ev != null) {
                        events.add(ev);
                    }
                }
            } catch (InterruptedException ignored) {
                // closing
            }
        }, "rank-engine-lines");
        lines.setDaemon(true);
        lines.start();

        Set<Integer> waiting = new TreeSet<>(wires.keySet());
        long deadline = startedNanos + START_TIMEOUT.toNanos();
        while (!waiting.isEmpty()) {
            Event ev = poll(deadline);
            if (ev == null) {
                throw engineError("rank engines " + waiting + " did not get ready within " + START_TIMEOUT.toSeconds()
                        + " s" + recent(waiting));
            }
            if (ev.line() != null) {
                remember(ev.line());
            } else if (ev.message() == null) {
                throw engineError("rank " + ev.rank() + " died while starting" + recent(Set.of(ev.rank())));
            } else if ("ready".equals(str(ev.message(), "type"))) {
                JsonObject m = ev.message();
                int r = ev.rank();
                ranks.set(r, ranks.get(r).withGpu(m.has("gpu") ? m.get("gpu").getAsInt() : -1, str(m, "gpuName"),
                        str(m, "gpuNote")));
                waiting.remove(r);
            }
        }
    }

    private void readLink(int rank, EngineWire w) {
        try {
            JsonObject m;
            while ((m = w.receive()) != null) {
                events.add(new Event(rank, m, null));
            }
        } catch (IOException e) {
            // a broken link: the same as a closed one
        }
        events.add(new Event(rank, null, null));
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
        long id;
        synchronized (this) {
            id = ++nextCellId;
            cellRunning = true;
            interruptRequested = false;
        }
        try {
            JsonObject exec = EngineWire.exec(id, code);
            for (int r : wires.keySet()) {
                send(r, exec);
            }
            RankResults results = collect(id, output);
            cellsRun++;
            return results;
        } finally {
            cellRunning = false;
        }
    }

    private RankResults collect(long id, RankOutput output) throws CellError {
        RankResults results = new RankResults(wires.size());
        Set<Integer> pending = new TreeSet<>(wires.keySet());
        boolean interruptSent = false;
        long stopDeadline = Long.MAX_VALUE;
        long firstErrorAt = Long.MAX_VALUE;
        while (!pending.isEmpty()) {
            if (interruptRequested && !interruptSent) {
                interruptSent = true;
                stopDeadline = System.nanoTime() + STOP_GRACE.toNanos();
            }
            if (!interruptSent && firstErrorAt != Long.MAX_VALUE
                    && System.nanoTime() - firstErrorAt > STRAGGLER_GRACE.toNanos()) {
                output.note("ranks " + pending + " are still running " + STRAGGLER_GRACE.toSeconds() + " s after "
                        + RankResults.ranksLabel(new ArrayList<>(results.errors().keySet())) + " failed (waiting in a"
                        + " collective the failed ranks never reached?): interrupting them");
                sendInterrupt(pending);
                interruptSent = true;
                stopDeadline = System.nanoTime() + STOP_GRACE.toNanos();
            }
            if (System.nanoTime() > stopDeadline) {
                throw takeDown("rank" + (pending.size() == 1 ? " " : "s ") + pending + " did not stop within "
                        + STOP_GRACE.toSeconds() + " s of the interrupt (blocked in MPI, or in code that ignores"
                        + " interrupts)", pending);
            }
            Event ev;
            try {
                ev = events.poll(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw takeDown("the kernel was interrupted while waiting for the ranks", pending);
            }
            if (ev == null) {
                continue;
            }
            if (ev.line() != null) {
                RankLine l = ev.line();
                remember(l);
                if (l.rank() >= 0) { // output outside the cell's own streams (MPJ, the JVM): show it too
                    output.stream(l.rank(), l.isStderr() ? "stderr" : "stdout", l.text() + "\n");
                }
                continue;
            }
            if (ev.message() == null) {
                throw rankDied(ev.rank());
            }
            JsonObject m = ev.message();
            if (!m.has("id") || m.get("id").getAsLong() != id) {
                continue; // from an earlier, interrupted cell
            }
            switch (str(m, "type")) {
                case "stream":
                    output.stream(ev.rank(), str(m, "name"), str(m, "text"));
                    break;
                case "display":
                    output.display(ev.rank(), EngineWire.displayData(m.getAsJsonObject("data")));
                    break;
                case "update":
                    output.update(ev.rank(), str(m, "displayId"), EngineWire.displayData(m.getAsJsonObject("data")));
                    break;
                case "result":
                    pending.remove(ev.rank());
                    if (m.has("error")) {
                        results.error(ev.rank(), cellError(m.getAsJsonObject("error")));
                        firstErrorAt = Math.min(firstErrorAt, System.nanoTime());
                    } else if (m.has("value")) {
                        results.value(ev.rank(), EngineWire.displayData(m.getAsJsonObject("value")));
                    }
                    break;
                default:
                    break;
            }
        }
        return results;
    }

    /** Interrupts the running cell on every rank (called from the kernel's interrupt, on another thread). */
    public void interrupt() {
        if (cellRunning && !closed) {
            interruptRequested = true;
            sendInterrupt(wires.keySet());
        }
    }

    private void sendInterrupt(Set<Integer> which) {
        JsonObject m = EngineWire.message("interrupt");
        for (int r : which) {
            try {
                wires.get(r).send(m);
            } catch (IOException e) {
                // that rank is gone; its link reader reports it
            }
        }
    }

    /** Adds class path entries to every rank's cells (the kernel's %jars). */
    public void addClassPath(List<String> entries) throws CellError {
        JsonObject m = EngineWire.message("classpath");
        m.add("entries", jsonArray(entries));
        for (int r : wires.keySet()) {
            send(r, m);
        }
    }

    /** A rank's link dropped while a cell ran: report it, stop the others, close everything. */
    private CellError rankDied(int rank) {
        // In multicore all ranks share a JVM: give the other links a moment to drop too, to name them all.
        Set<Integer> dead = new TreeSet<>(List.of(rank));
        long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
        while (System.nanoTime() < until) {
            Event ev = events.poll();
            if (ev == null) {
                sleep(20);
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

    private CellError takeDown(String message, Set<Integer> about) {
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
        closeQuietly(server);
        job.stop();
        return jobOutcome(job);
    }

    private static String jobOutcome(RunningJob job) {
        try {
            return job.awaitResult(Duration.ofSeconds(1)).map(r -> ": " + r).orElse("");
        } catch (MpjJobException e) {
            return ": " + e.getMessage();
        } catch (RuntimeException e) {
            return ": " + e;
        }
    }

    /** One row per rank: where it runs and whether its process is alive. */
    public Table status() {
        IntColumn rank = IntColumn.create("rank");
        StringColumn host = StringColumn.create("host");
        LongColumn pid = LongColumn.create("pid");
        IntColumn local = IntColumn.create("local rank");
        StringColumn gpu = StringColumn.create("GPU");
        StringColumn state = StringColumn.create("state");
        for (Rank r : ranks) {
            rank.append(r.rank());
            host.append(r.host());
            pid.append(r.pid());
            local.append(r.localRank());
            gpu.append(r.gpuLabel());
            boolean alive = !closed && ProcessHandle.of(r.pid()).map(ProcessHandle::isAlive).orElse(false);
            state.append(!alive ? "stopped" : cellRunning ? "running a cell" : "idle");
        }
        return Table.create(ranks.size() + " rank engines (" + device + ", up "
                + Duration.ofNanos(System.nanoTime() - startedNanos).toSeconds() + " s, " + cellsRun + " cells)",
                rank, host, pid, local, gpu, state);
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
        JsonObject bye = EngineWire.message("shutdown");
        for (int r : wires.keySet()) {
            try {
                wires.get(r).send(bye);
            } catch (IOException e) {
                // gone already
            }
        }
        try {
            job.awaitResult(SHUTDOWN_GRACE);
        } catch (RuntimeException e) {
            // ended badly: the processes are gone all the same
        }
        stopJob();
    }

    private void send(int rank, JsonObject m) throws CellError {
        try {
            wires.get(rank).send(m);
        } catch (IOException e) {
            throw rankDied(rank);
        }
    }

    private Event poll(long deadlineNanos) {
        try {
            return events.poll(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void remember(RankLine line) {
        Deque<String> q = recentLines.computeIfAbsent(line.rank(), k -> new ArrayDeque<>());
        q.addLast(line.toString());
        while (q.size() > RECENT_LINES) {
            q.removeFirst();
        }
        if (!cellRunning || line.rank() < 0) {
            log(line.toString());
        }
    }

    private String recent(Set<Integer> about) {
        StringBuilder sb = new StringBuilder();
        for (int r : about) {
            Deque<String> q = recentLines.get(r);
            if (q != null && !q.isEmpty()) {
                sb.append("\nlast lines of rank ").append(r).append(":\n").append(String.join("\n", q));
            }
        }
        Deque<String> mpj = recentLines.get(-1);
        if (mpj != null && !mpj.isEmpty()) {
            sb.append("\nlast lines of MPJ:\n").append(String.join("\n", mpj));
        }
        return sb.toString();
    }

    private static String lastLines(BlockingQueue<Event> early) {
        List<String> lines = early.stream().filter(e -> e.line() != null).map(e -> e.line().toString())
                .collect(Collectors.toList());
        int from = Math.max(0, lines.size() - RECENT_LINES);
        return lines.isEmpty() ? "" : "\nlast lines:\n" + String.join("\n", lines.subList(from, lines.size()));
    }

    private void log(String line) {
        log.println("[mpj engines] " + line);
    }

    private static CellError cellError(JsonObject e) {
        List<String> tb = new ArrayList<>();
        for (JsonElement l : e.getAsJsonArray("traceback")) {
            tb.add(l.getAsString());
        }
        CellError.Kind kind;
        try {
            kind = CellError.Kind.valueOf(str(e, "kind"));
        } catch (IllegalArgumentException ex) {
            kind = CellError.Kind.EXCEPTION;
        }
        return new CellError(kind, str(e, "name"), str(e, "message"), tb);
    }

    static CellError engineError(String message) {
        return new CellError(CellError.Kind.ENGINE, "RankEngineError", message, List.of(message.split("\n")));
    }

    private static String str(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? "" : e.getAsString();
    }

    private static JsonArray jsonArray(List<String> items) {
        JsonArray a = new JsonArray();
        items.forEach(a::add);
        return a;
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
