package org.mpi2nccl.kernel.mpj;

import org.mpi2nccl.launch.rank.JobHome;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import mpi.MPI;
import org.mpi2nccl.kernel.jshell.CommonImports;
import org.mpi2nccl.kernel.output.Display;
import org.mpi2nccl.kernel.output.DisplaySink;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.kernel.jshell.CellValue;
import org.mpi2nccl.kernel.jshell.JShellEvaluator;
import org.mpi2nccl.kernel.jshell.SplitCell;
import org.mpi2nccl.launch.MpjHome;
import org.mpi2nccl.launch.rank.Lifeline;
import org.mpi2nccl.launch.rank.WaitPlace;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One rank engine: an MPJ rank that holds a JShell and runs the cells the kernel sends it (the rank program that
 * {@code %mpj start} launches). Arguments after MPJ's: the kernel's host and port. The job's token comes in the
 * environment ({@link #TOKEN_ENV}), never on the command line, where every user of the machine can read it.
 *
 * <p>The rank's main thread runs the cells, one at a time, on threads of the rank's own thread group (MPJ's
 * multicore device needs that); a reader thread takes the kernel's messages so that an interrupt arrives while a
 * cell runs. When the kernel's link closes without a shutdown (the kernel died), the engine's JVM ends at once:
 * no rank outlives its kernel.
 */
public final class RankEngine {
    /**
     * The variable holding the job's token, which a rank shows the kernel to be let in. A process's environment
     * is readable by its own user only (/proc/PID/environ is 0400), its command line by everyone (/proc/PID/cmdline).
     */
    public static final String TOKEN_ENV = "MPI2NCCL_ENGINE_TOKEN";

    static final Duration FINALIZE_PATIENCE = Duration.ofSeconds(5);
    static final Duration STOP_PATIENCE = Duration.ofSeconds(3);

    private final EngineWire wire;
    private final int rank;
    private final ThreadGroup rankGroup;
    private final BlockingQueue<JsonObject> work = new LinkedBlockingQueue<>();
    private volatile JShellEvaluator evaluator;
    private volatile boolean shuttingDown;
    private volatile long cellId = -1;
    /** The communication call the running cell was in when an interrupt stopped it (null: none). */
    private volatile String stoppedIn;
    /** The kernel's output folder, where a cell's output past this rank's share goes (null: none given). */
    private Path outputFolder;

    private RankEngine(EngineWire wire, int rank, ThreadGroup rankGroup) {
        this.wire = wire;
        this.rank = rank;
        this.rankGroup = rankGroup;
    }

    public static void main(String[] args) throws Exception {
        ThreadGroup rankGroup = Thread.currentThread().getThreadGroup();
        List<String> classPath = classPathOf(RankEngine.class.getClassLoader());
        // Starting JShell (its compiler and the imports) is the slowest part of an engine's start: start it while MPI
        // and the kernel link come up.
        CompletableFuture<JShellEvaluator> jshell = CompletableFuture.supplyAsync(() -> {
            try {
                return JShellEvaluator.startForRank(RankEngine.class.getClassLoader(), classPath, CommonImports.RANK,
                        rankGroup);
            } catch (CellError e) {
                throw new IllegalStateException("JShell did not start: " + e.getMessage(), e);
            }
        }, command -> new Thread(rankGroup, command, "jshell-start").start());

        String[] appArgs = MPI.Init(args);
        String token = System.getenv(TOKEN_ENV);
        if (appArgs.length < 1 || token == null || token.isBlank()) {
            throw new IllegalArgumentException("a rank engine needs the kernel's socket as its argument and the"
                    + " job's token in " + TOKEN_ENV + ", it got " + List.of(appArgs) + (token == null ? " and no token" : "")
                    + ": start engines with %mpj start");
        }
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        RankEngine engine = new RankEngine(new EngineWire(EngineLink.connect(Path.of(appArgs[0]))), rank, rankGroup);
        engine.run(token, size, jshell);
        finalizeMpi(rankGroup);
    }

    private void run(String token, int size, CompletableFuture<JShellEvaluator> jshell) throws Exception {
        JsonObject hello = EngineWire.message("hello");
        hello.addProperty("token", token);
        hello.addProperty("rank", rank);
        hello.addProperty("size", size);
        hello.addProperty("pid", ProcessHandle.current().pid());
        hello.addProperty("host", InetAddress.getLocalHost().getHostName());
        hello.addProperty("java", Runtime.version().toString());
        wire.send(hello);

        JsonObject welcome = wire.receive();
        if (welcome == null || !"welcome".equals(welcome.get("type").getAsString())) {
            throw new IOException("the kernel did not welcome rank " + rank + " (got " + welcome + ")");
        }
        EngineRank.set(rank, size, welcome.get("localRank").getAsInt(), welcome.get("localSize").getAsInt());
        EngineGpu gpu = selectGpu(welcome.has("ownJvm") && welcome.get("ownJvm").getAsBoolean());
        String folder = welcome.has("outputFolder") ? welcome.get("outputFolder").getAsString() : "";
        outputFolder = folder.isEmpty() ? null : Path.of(folder);
        CellOutputRouter[] routers = CellOutputRouter.install(rankGroup);
        Display.install(new LinkDisplaySink());

        evaluator = jshell.get(120, TimeUnit.SECONDS);
        if (gpu.present() && gpu.note().isEmpty()) {
            evaluator.onCellThread(gpu::makeCurrent);
        }
        addClassPath(welcome.getAsJsonArray("classpath"));
        // The first snippet that runs: it must not call MPI (see JShellEvaluator.startForRank).
        evaluator.eval(SplitCell.single("int rank = " + rank + ", size = " + size + ", localRank = "
                + EngineRank.localRank() + ", localSize = " + EngineRank.localSize() + ", gpu = " + gpu.index()
                + ";"));
        JsonObject ready = EngineWire.message("ready");
        ready.addProperty("gpu", gpu.index());
        ready.addProperty("gpuName", gpu.name());
        ready.addProperty("gpuNote", gpu.note());
        wire.send(ready);

        Thread reader = new Thread(rankGroup, this::readKernel, "kernel-link");
        reader.setDaemon(true);
        reader.start();

        while (true) {
            JsonObject m = work.take();
            String type = m.get("type").getAsString();
            if (type.equals("shutdown")) {
                break;
            } else if (type.equals("classpath")) {
                addClassPath(m.getAsJsonArray("entries"));
            } else if (type.equals("exec")) {
                long shownBytes = m.has("shownBytes") ? m.get("shownBytes").getAsLong() : Long.MAX_VALUE;
                runCell(m.get("id").getAsLong(), EngineWire.splitCell(m), shownBytes, routers);
            }
        }
        evaluator.close();
        wire.close();
    }

    /** This rank's GPU (see {@link EngineGpu}); a GPU that cannot be made current is kept, with the reason. */
    private static EngineGpu selectGpu(boolean ownJvm) {
        EngineGpu gpu;
        try {
            gpu = EngineGpu.select(EngineRank.localRank(), ownJvm);
        } catch (RuntimeException | LinkageError e) {
            gpu = new EngineGpu(-1, "", "the GPUs could not be read: " + e);
        }
        if (gpu.present()) {
            String problem = gpu.makeCurrent(); // once here, so that a problem is reported at start
            if (problem != null) {
                gpu = new EngineGpu(gpu.index(), gpu.name(), problem);
            }
        }
        EngineRank.setGpu(gpu.index(), gpu.name());
        return gpu;
    }

    private void addClassPath(JsonArray entries) {
        if (entries != null) {
            for (JsonElement e : entries) {
                evaluator.addToClasspath(e.getAsString());
            }
        }
    }

    private void runCell(long id, SplitCell code, long shownBytes, CellOutputRouter[] routers) throws IOException {
        cellId = id;
        stoppedIn = null;
        RankCellOutput output = new RankCellOutput(rank, shownBytes, RankCellOutput.FILE_BYTES, outputFolder,
                (stream, text) -> sendQuietly(stream(id, stream, text)));
        for (CellOutputRouter r : routers) {
            r.capture(output);
        }
        JsonObject result = EngineWire.message("result");
        result.addProperty("id", id);
        try {
            CellValue value = evaluator.eval(code);
            System.out.flush();
            System.err.flush();
            if (value.present()) {
                result.add("value", EngineWire.toJson(Display.render(value.value())));
            }
        } catch (CellError e) {
            result.add("error", error(e.kind().name(), e.name(), e.getMessage(), e.traceback()));
            if (stoppedIn != null && e.kind() == CellError.Kind.INTERRUPTED) {
                result.addProperty("stoppedIn", stoppedIn);   // the kernel warns before the next collective
            }
        } catch (RuntimeException | Error e) {
            result.add("error", error(CellError.Kind.ENGINE.name(), e.getClass().getName(), String.valueOf(e.getMessage()),
                    List.of("the rank engine failed while running the cell: " + e)));
        } finally {
            for (CellOutputRouter r : routers) {
                r.capture(null);
            }
            cellId = -1;
        }
        String cut = output.finish();
        if (cut != null) {
            JsonObject note = EngineWire.message("note");
            note.addProperty("id", id);
            note.addProperty("text", cut);
            wire.send(note); // before the result: the kernel shows it with the cell
        }
        wire.send(result);
    }

    private void readKernel() {
        try {
            JsonObject m;
            while ((m = wire.receive()) != null) {
                String type = m.get("type").getAsString();
                if (type.equals("interrupt")) {
                    JShellEvaluator ev = evaluator;
                    if (ev != null && ev.isRunning()) {
                        WaitPlace.Place place = ev.where();
                        if (place != null && place.inCommunication()) stoppedIn = place.describe();
                        new Thread(rankGroup, () -> ev.stop(STOP_PATIENCE), "interrupt").start();
                    }
                } else if (type.equals("where")) {
                    sendQuietly(where(m.get("id").getAsLong()));   // answered at once: the cell thread is stuck
                } else if (type.equals("complete")) {
                    JsonObject request = m;
                    Thread t = new Thread(rankGroup, () -> sendQuietly(CompletionRequests.answer(request, evaluator)), "complete");
                    t.setDaemon(true);
                    t.start(); // off the reader: an interrupt must not wait behind JShell's analysis
                } else {
                    if (type.equals("shutdown")) {
                        shuttingDown = true;
                        JShellEvaluator ev = evaluator;
                        if (ev != null && ev.isRunning()) {
                            ev.stop(STOP_PATIENCE);
                        }
                    }
                    work.add(m);
                }
            }
        } catch (IOException e) {
            // the link broke: same as closed
        }
        if (!shuttingDown) {
            // The kernel is gone (it died or was killed): nobody will ever send a shutdown. End this JVM now,
            // every rank of it: an engine without its kernel is a process left behind.
            stopOrphanedDaemon();
            Runtime.getRuntime().halt(3);
        }
        work.add(EngineWire.message("shutdown"));
    }

    /**
     * niodev: this JVM's parent is the MPJ daemon the launcher started for this job alone (it runs from the
     * job's private MPJ home, /tmp/mpj-job-*). The launcher in the kernel would stop it and delete that home;
     * with the kernel gone, the rank does both itself. Nothing else is touched.
     */
    private static void stopOrphanedDaemon() {
        ProcessHandle.current().parent().ifPresent(parent -> {
            String cmd = parent.info().commandLine().orElse("");
            if (cmd.contains("daemon.jar") && cmd.contains(JobHome.PREFIX)) {
                parent.destroyForcibly();
                deleteOrphanedJobHome(cmd);
            }
        });
    }

    /** The job's private MPJ home: this rank's MPJ_HOME, when the daemon's command line names it too. */
    private static void deleteOrphanedJobHome(String daemonCommand) {
        String home = System.getenv("MPJ_HOME");
        if (home == null || !Path.of(home).getFileName().toString().startsWith(JobHome.PREFIX)
                || !daemonCommand.contains(home)) {
            return;
        }
        JobHome.delete(Path.of(home));   // every rank of the job may be doing it at once
    }

    /** Where this rank's cell thread is (the stall inspector asks); "" when no cell runs. */
    private JsonObject where(long id) {
        JsonObject m = EngineWire.message("where");
        m.addProperty("id", id);
        JShellEvaluator ev = evaluator;
        WaitPlace.Place place = ev == null ? null : ev.where();
        m.addProperty("at", place == null ? "" : place.describe());
        m.addProperty("comm", place != null && place.inCommunication());
        return m;
    }

    private static JsonObject stream(long id, String name, String text) {
        JsonObject m = EngineWire.message("stream");
        m.addProperty("id", id);
        m.addProperty("name", name);
        m.addProperty("text", text);
        return m;
    }

    private static JsonObject error(String kind, String name, String message, List<String> traceback) {
        JsonObject e = new JsonObject();
        e.addProperty("kind", kind);
        e.addProperty("name", name);
        e.addProperty("message", message);
        JsonArray lines = new JsonArray();
        traceback.forEach(lines::add);
        e.add("traceback", lines);
        return e;
    }

    private void sendQuietly(JsonObject m) {
        try {
            wire.send(m);
        } catch (IOException e) {
            // the kernel is gone; readKernel ends the engine
        }
    }

    /** display(...) on a rank engine: the bundle travels to the kernel, which shows it under the cell. */
    private final class LinkDisplaySink implements DisplaySink {
        @Override
        public void display(DisplayData data) {
            JsonObject m = EngineWire.message("display");
            m.addProperty("id", cellId);
            m.add("data", EngineWire.toJson(data));
            sendQuietly(m);
        }

        @Override
        public void update(String displayId, DisplayData data) {
            JsonObject m = EngineWire.message("update");
            m.addProperty("id", cellId);
            m.addProperty("displayId", displayId);
            m.add("data", EngineWire.toJson(data));
            sendQuietly(m);
        }
    }

    /**
     * MPI.Finalize, on a thread of the rank's group (multicore needs it) and with a time limit: after an
     * interrupted collective the other ranks may never answer, and the engine must end anyway.
     */
    private static void finalizeMpi(ThreadGroup rankGroup) throws InterruptedException {
        Thread t = new Thread(rankGroup, () -> {
            try {
                MPI.Finalize();
            } catch (RuntimeException e) {
                // nothing left to do
            }
        }, "finalize");
        t.setDaemon(true);
        t.start();
        t.join(FINALIZE_PATIENCE.toMillis());
    }

    /** Every jar and folder the engine's classes come from: what cells are compiled against. */
    static List<String> classPathOf(ClassLoader loader) {
        Set<String> entries = new LinkedHashSet<>();
        List<ClassLoader> chain = new ArrayList<>();
        for (ClassLoader l = loader; l != null; l = l.getParent()) {
            chain.add(0, l);
        }
        for (ClassLoader l : chain) {
            if (l instanceof URLClassLoader) {
                for (URL u : ((URLClassLoader) l).getURLs()) {
                    if ("file".equals(u.getProtocol())) {
                        try {
                            entries.add(Path.of(u.toURI()).toString());
                        } catch (Exception e) {
                            // not a plain file URL
                        }
                    }
                }
            }
        }
        if (chain.contains(ClassLoader.getSystemClassLoader())) { // niodev: the engine is on the JVM's class path
            for (String e : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
                if (!e.isBlank()) {
                    entries.add(e);
                }
            }
        }
        return new ArrayList<>(entries);
    }
}
